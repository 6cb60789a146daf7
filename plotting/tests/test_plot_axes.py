#!/usr/bin/env python3
"""Tests the figures of ringlab_plot.py and compare_plot.py from their axes objects (Agg, nothing
shown): out-of-place and in-place side by side, the median (time_us.p50) as the plotted time, error
bars from the median's 95 % interval only where a report has it, a log speed-up axis, size tick
labels in B / KiB / MiB, and a report of several (type, op) split into one set of figures per pair.
Usage: test_plot_axes.py [unittest options]"""
import copy
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import compare_plot  # noqa: E402
import ringlab_plot  # noqa: E402
import ringlab_reports  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402  (after ringlab_plot chose Agg)

MPL = ringlab_plot.setup_matplotlib()
PLT = MPL[0]
REPORTS = os.path.join(HERE, "reports")


def report(name, placements=ringlab_plot.PLACEMENTS, folder=REPORTS):
    path = os.path.join(folder, name)
    with open(path, encoding="utf-8") as stream:
        return ringlab_plot.Report(path, json.load(stream), placements)


def two_type_ops():
    """bench-with-ci.json as if run with -d float32,float64 -o sum,max: its rows as float32 sum, and
    again as float64 max with every time doubled."""
    with open(os.path.join(REPORTS, "bench-with-ci.json"), encoding="utf-8") as stream:
        data = json.load(stream)
    doubled = copy.deepcopy(data["results"])
    for result in doubled:
        result.update(type="float64", redop="max", count=result["count"] // 2)
        result["time_us"] = {key: 2 * value for key, value in result["time_us"].items()}
    data["results"] += doubled
    data["config"].update(datatype="all", datatypes=["float32", "float64"], op="all", ops=["sum", "max"])
    return ringlab_plot.Report("two-type-ops.json", data)


def tick_labels(ax):
    ax.figure.canvas.draw()
    return [label.get_text() for label in ax.get_xticklabels() if label.get_text()]


def error_bars(ax):
    return {container.get_label(): container for container in ax.containers if isinstance(container, ErrorbarContainer)
            and container.has_yerr}


def line(ax, label):
    """An algorithm's data line: a plain line, or the data line of its error bars."""
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer) and container.get_label() == label:
            return container.lines[0]
    return next(candidate for candidate in ax.get_lines() if candidate.get_label() == label)


def row(rep, algorithm, placement, size):
    frame = rep.frame
    return frame[(frame.algorithm == algorithm) & (frame.placement == placement) & (frame.size_bytes == size)].iloc[0]


class Figures(unittest.TestCase):
    def tearDown(self):
        PLT.close("all")

    def test_side_by_side_panels_with_byte_ticks(self):
        rep = report("bench-with-ci.json")
        for make in (ringlab_plot.busbw_figure, ringlab_plot.latency_figure):
            figure = make(PLT, MPL, rep)
            panels = figure.axes
            self.assertEqual([ax.get_title() for ax in panels], ["out-of-place", "in-place"])
            for ax in panels:
                self.assertEqual(tick_labels(ax), ["8 B", "4 KiB", "32 KiB"])

    def test_one_panel_for_one_placement(self):
        figure = ringlab_plot.latency_figure(PLT, MPL, report("bench-no-ci.json", "in-place"))
        self.assertEqual([ax.get_title() for ax in figure.axes], ["in-place"])

    def test_latency_is_the_median_with_its_interval(self):
        rep = report("bench-with-ci.json")
        out_of_place = ringlab_plot.latency_figure(PLT, MPL, rep).axes[0]
        self.assertEqual(out_of_place.get_yscale(), "log")
        expected = list(rep.series("ring", "out-of-place")["time_us_p50"])
        self.assertEqual(list(line(out_of_place, "ring").get_ydata()), expected)
        bars = error_bars(out_of_place)
        self.assertEqual(sorted(bars), ["interval_paired", "parameter_server", "ring"])
        ring = row(rep, "ring", "out-of-place", 4096)
        segments = bars["ring"].lines[2][0].get_segments()
        ends = [tuple(segment[:, 1]) for segment in segments if segment[0, 0] == 4096]
        self.assertEqual(len(ends), 1)
        self.assertAlmostEqual(ends[0][0], ring["time_us_p50_ci95_low"])
        self.assertAlmostEqual(ends[0][1], ring["time_us_p50_ci95_high"])

    def test_no_error_bars_without_the_interval(self):
        rep = report("bench-no-ci.json")
        for make in (ringlab_plot.busbw_figure, ringlab_plot.latency_figure):
            for ax in make(PLT, MPL, rep).axes:
                self.assertEqual(error_bars(ax), {})
        speedup = ringlab_plot.speedup_figure(PLT, MPL, rep, "ring")
        for ax in speedup.axes:
            self.assertEqual(error_bars(ax), {})
            self.assertEqual(ax.get_yscale(), "log")

    def test_speedup_axis_is_log_with_the_ratio_of_medians(self):
        rep = report("bench-with-ci.json")
        figure = ringlab_plot.speedup_figure(PLT, MPL, rep, "ring")
        self.assertEqual([ax.get_title() for ax in figure.axes], ["out-of-place", "in-place"])
        for ax in figure.axes:
            self.assertEqual(ax.get_yscale(), "log")
            self.assertEqual(tick_labels(ax), ["8 B", "4 KiB", "32 KiB"])
            self.assertNotIn("ring", [c.get_label() for c in ax.containers + ax.get_lines()])  # the line at 1
        in_place = figure.axes[1]
        base = row(rep, "ring", "in-place", 32768)
        paired = row(rep, "interval_paired", "in-place", 32768)
        ys = dict(zip(line(in_place, "interval_paired").get_xdata(), line(in_place, "interval_paired").get_ydata()))
        self.assertAlmostEqual(ys[32768], base["time_us_p50"] / paired["time_us_p50"])
        segments = error_bars(in_place)["interval_paired"].lines[2][0].get_segments()
        low, high = next(tuple(segment[:, 1]) for segment in segments if segment[0, 0] == 32768)
        self.assertAlmostEqual(low, base["time_us_p50_ci95_low"] / paired["time_us_p50_ci95_high"])
        self.assertAlmostEqual(high, base["time_us_p50_ci95_high"] / paired["time_us_p50_ci95_low"])

    def test_busbw_at_the_median_time(self):
        rep = report("bench-with-ci.json")
        ax = ringlab_plot.busbw_figure(PLT, MPL, rep).axes[0]
        ring = row(rep, "ring", "out-of-place", 32768)
        factor = ring["busbw_gbps"] / ring["algbw_gbps"]
        ys = dict(zip(line(ax, "ring").get_xdata(), line(ax, "ring").get_ydata()))
        self.assertAlmostEqual(ys[32768], factor * 32768 / (ring["time_us_p50"] * 1e3))
        self.assertEqual(ax.get_ylim()[0], 0)

    def test_speedup_skipped_without_the_baseline(self):
        self.assertIsNone(ringlab_plot.speedup_figure(PLT, MPL, report("bench-no-ci.json"), "mpi-native"))

    def test_busbw_vs_ranks(self):
        n2 = report("bench-with-ci.json")
        n4 = report("sample-report-n4.json", folder=HERE)
        figure, size = ringlab_plot.busbw_vs_ranks_figure(PLT, MPL, [n2, n4])
        self.assertEqual(size, 32768)
        self.assertIn("at 32 KiB", figure._suptitle.get_text())
        self.assertEqual([ax.get_title() for ax in figure.axes], ["out-of-place", "in-place"])

    def test_one_report_per_type_and_op(self):
        whole = two_type_ops()
        whole.suffix = "_n2"
        parts = whole.by_type_op()
        self.assertEqual([part.suffix for part in parts], ["_n2_float32_sum", "_n2_float64_max"])
        self.assertEqual([(part.datatype, part.op) for part in parts], [("float32", "sum"), ("float64", "max")])
        single = report("bench-with-ci.json")
        for part in parts:
            self.assertEqual(len(part.frame), len(single.frame))
            self.assertEqual(set(zip(part.frame.type, part.frame.redop)), {(part.datatype, part.op)})
            self.assertIn(f"{part.datatype}, op {part.op}", part.subtitle())
        self.assertEqual(single.by_type_op(), [single])  # one (type, op): the report itself, its names plain
        factor = {"sum": 1, "max": 2}
        for part in parts:
            ax = ringlab_plot.latency_figure(PLT, MPL, part).axes[0]
            expected = [factor[part.op] * value for value in single.series("ring", "out-of-place")["time_us_p50"]]
            self.assertEqual(list(line(ax, "ring").get_ydata()), expected)  # one point per size, the pair's

    def test_busbw_vs_ranks_per_type_and_op(self):
        whole = two_type_ops()
        n4 = report("sample-report-n4.json", folder=HERE)
        parts = whole.by_type_op() + n4.by_type_op()
        groups = ringlab_plot.busbw_vs_ranks_groups([whole, n4], parts)
        self.assertEqual([(suffix, [p.nranks for p in group]) for suffix, group in groups],
                         [("_float32_sum", [2, 4]), ("_float64_max", [2])])
        self.assertEqual(ringlab_plot.busbw_vs_ranks_groups([n4], [n4]), [("", [n4])])

    def test_compare_plot_both_placements_side_by_side(self):
        frame = ringlab_reports.load(os.path.join(REPORTS, "compare.json"), kind="compare")
        document = copy.deepcopy(frame.attrs["document"])
        in_place = copy.deepcopy(document["rows"])
        for compared in in_place:
            compared["placement"] = "in-place"
        document["rows"] += in_place
        both = ringlab_reports.from_document(document, "both.json", kind="compare")
        figure = compare_plot.figure(PLT, MPL, both, "flow-level")
        titles = [ax.get_title() for ax in figure.axes]  # row by row: the times, then the errors
        self.assertEqual(titles[:2], ["N = 2, out-of-place", "N = 2, in-place"])
        self.assertEqual([title.split(":")[0] for title in titles[2:]], ["N = 2, out-of-place", "N = 2, in-place"])
        one = compare_plot.figure(PLT, MPL, both, "flow-level", "in-place")
        self.assertEqual([ax.get_title() for ax in one.axes][0], "N = 2, in-place")
        self.assertEqual(len(one.axes), 2)

    def test_compare_plot_size_ticks(self):
        frame = ringlab_reports.load(os.path.join(REPORTS, "compare.json"), kind="compare")
        figure = compare_plot.figure(PLT, MPL, frame, "flow-level", "out-of-place")
        for ax in figure.axes:
            self.assertEqual(tick_labels(ax), ["64 KiB", "1 MiB"])
        self.assertIsNone(compare_plot.figure(PLT, MPL, frame, "flow-level", "in-place"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
