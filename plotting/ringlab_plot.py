#!/usr/bin/env python3
"""Plot ringlab.bench/1 reports (the JSON that `ringlab bench` and `ringlab simulate` write).

Usage: plotting/ringlab_plot.py REPORT... --out DIR [--baseline NAME] [--placement out-of-place|in-place]

For each report, writes PNG and SVG files into DIR, each with an out-of-place panel and an
in-place panel side by side (one of them with --placement, or when the report has only one):
  busbw_vs_size        bus bandwidth at the median time per algorithm against message size
  latency_vs_size      median time per call (time_us.p50) against message size (log-log)
  speedup_vs_baseline  median time of the baseline / the algorithm's per size, log y axis; the
                       baseline is --baseline or config.baseline, and the plot is skipped with a
                       note when it has no results
Error bars show the median's 95 % interval (time_us.p50_ci95_low/high) where the report has it,
and are left out where it does not. Size axes are labelled in B, KiB, MiB.
With one report the names are plain (busbw_vs_size.png); with several, each report's files carry
its rank count (busbw_vs_size_n4.png), and reports that share a rank count are numbered in
command-line order (busbw_vs_size_n4_1.png, busbw_vs_size_n4_2.png).
A report of several types or ops (bench -d all / -o all) gets one set of plots per (type, op),
its name ending in the pair (busbw_vs_size_float32_sum.png, busbw_vs_size_n4_int32_max.png).
When the reports cover two or more rank counts, also:
  busbw_vs_ranks       bus bandwidth per algorithm against N, at the largest size every report has
                       (one per (type, op) when a report has several: busbw_vs_ranks_float32_sum)
Rows are read through ringlab_reports (next to this file, or installed: pip install ./plotting).

Every report is validated first (validate_report.py); a bad one is refused with the validator's
messages and nothing is written for it. Exit status: 0 when everything was plotted, 1 when a report
was refused or a file could not be written, 2 on a usage error.
"""

import argparse
import json
import math
import os
import sys
import tempfile
import textwrap

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)
import validate_report  # noqa: E402  (next to this file)

FORMATS = ("png", "svg")
PLACEMENTS = ("out-of-place", "in-place")
CI_LOW, CI_HIGH = "time_us_p50_ci95_low", "time_us_p50_ci95_high"  # the median's 95 % interval, when bench gives it

# Fixed style per algorithm, so that a colour means the same thing in every plot.
STYLE = {
    "parameter_server": ("tab:gray", "s"),
    "ring": ("tab:blue", "o"),
    "interval_paired": ("tab:red", "D"),
    "halving_doubling": ("tab:green", "^"),
    "recursive_doubling": ("tab:purple", "v"),
    "swing": ("tab:brown", "<"),
    "swing_latency": ("tab:pink", ">"),
    "bine": ("tab:olive", "X"),
    "bruck": ("tab:cyan", "*"),
    "bruck_bounded": ("darkcyan", "p"),
    "double_binary_tree": ("darkgreen", "h"),
    "hierarchical": ("maroon", "8"),
    "nccl_ring": ("navy", "p"),
    "nccl_tree": ("darkorange", "d"),
    "mpi-native": ("tab:orange", "P"),
}


def note(message):
    print(f"ringlab_plot.py: note: {message}", file=sys.stderr)


byte_label = ringlab_reports.byte_label  # 8 -> '8 B', 1024 -> '1 KiB', 67108864 -> '64 MiB'


class Report:
    """One bench or simulate report: its document, its rows as a DataFrame (ringlab_reports) and
    the placements to draw, out-of-place first (one panel each). pair (type, op) keeps only the
    rows of that type and op (by_type_op); without it every row, typed as the config says."""

    def __init__(self, path, data, placements=PLACEMENTS, pair=None):
        self.path = path
        self.data = data
        self.config = data["config"]
        self.nranks = self.config["nranks"]
        self.frame = ringlab_reports.from_document(data, path, kind=("bench", "simulate"))
        self.wanted = (placements,) if isinstance(placements, str) else tuple(placements)
        if pair is not None:
            self.frame = self.frame[(self.frame["type"] == pair[0]) & (self.frame["redop"] == pair[1])]
        self.datatype, self.op = pair or (self.config["datatype"], self.config["op"])
        present = set(self.frame["placement"])
        self.placements = [placement for placement in PLACEMENTS if placement in self.wanted and placement in present]
        self.suffix = ""

    def type_op_pairs(self):
        """The (type, op) pairs of the rows, in report order (bench -d all / -o all has several)."""
        if "type" not in self.frame.columns or "redop" not in self.frame.columns:
            return [(self.datatype, self.op)]
        return list(dict.fromkeys(zip(self.frame["type"], self.frame["redop"])))

    def by_type_op(self):
        """This report, or one Report per (type, op) when the rows have several, each with this
        report's suffix and the pair after it (_float32_sum)."""
        pairs = self.type_op_pairs()
        if len(pairs) == 1:
            return [self]
        parts = []
        for pair in pairs:
            part = Report(self.path, self.data, self.wanted, pair)
            part.suffix = f"{self.suffix}_{pair[0]}_{pair[1]}"
            parts.append(part)
        return parts

    def series(self, algorithm, placement):
        """Rows of one algorithm and placement with a size > 0 (a log axis cannot show 0 B), by size."""
        frame = self.frame
        rows = frame[(frame["algorithm"] == algorithm) & (frame["placement"] == placement) & (frame["size_bytes"] > 0)]
        return rows.sort_values("size_bytes")

    def algorithms(self):
        present = set(self.frame[self.frame["placement"].isin(self.placements)]["algorithm"])
        return [name for name in self.config["algorithms"] if name in present]

    def subtitle(self):
        data, config = self.data, self.config
        text = (f"{data['kind']}: backend {config['backend']}, N={self.nranks}, {self.datatype}, "
                f"op {self.op}, host {data['machine']['hostname']}")
        if config.get("oversubscribed"):  # bench's placement check: no bandwidth claim from such a run
            text += (f"\nOVERSUBSCRIBED: {config.get('ranks_per_host')} ranks on {config.get('usable_cores')} cores: "
                     "correctness and latency ordering only, not bandwidth")
        return text + (" (partial)" if not data["complete"] else "")


def load(path, placement_wanted):
    """Validate and load one report; returns (Report or None, problems). placement_wanted None: both."""
    data, problems = validate_report.validate_file(path)
    if problems:
        return None, problems
    placements = {row["placement"] for row in data["results"]}
    if not data["results"]:
        return None, ["$.results: no results to plot (the report is empty)"]
    if placement_wanted is not None and placement_wanted not in placements:
        return None, [f"$.results: no results with placement {placement_wanted} "
                      f"(the report has: {', '.join(sorted(placements))})"]
    try:
        return Report(path, data, placement_wanted or PLACEMENTS), []
    except ringlab_reports.ReportError as error:
        return None, [str(error)]


# ---------------------------------------------------------------- values drawn
# Every time drawn is the median call (time_us.p50); error bars are the median's 95 % interval
# where the report has it (time_us.p50_ci95_low/high), none where it does not.

def has_interval(rows):
    return CI_LOW in rows.columns and CI_HIGH in rows.columns


def interval_or_none(low, high):
    """(low, high): arrays with NaN where a row has no interval; None when no row has one."""
    return None if numpy.isnan(low).all() or numpy.isnan(high).all() else (low, high)


def median_times(rows):
    """(sizes, p50 times, (low, high) or None) in microseconds."""
    times = rows["time_us_p50"].to_numpy(dtype=float)
    band = None
    if has_interval(rows):
        band = interval_or_none(rows[CI_LOW].to_numpy(dtype=float), rows[CI_HIGH].to_numpy(dtype=float))
    return rows["size_bytes"].to_numpy(dtype=float), times, band


def median_busbw(rows):
    """(sizes, busbw at the median time, (low, high) or None) in GB/s: the report's busbw factor
    (busbw / algbw, 2(N-1)/N for all-reduce) times size / time; a slower end of the interval gives
    the lower bandwidth."""
    sizes, times, band = median_times(rows)
    algbw = rows["algbw_gbps"].to_numpy(dtype=float)
    factor = numpy.divide(rows["busbw_gbps"].to_numpy(dtype=float), algbw, out=numpy.zeros_like(algbw),
                          where=algbw > 0)

    def busbw(time_us):
        return factor * sizes / (time_us * 1e3)

    return sizes, busbw(times), None if band is None else (busbw(band[1]), busbw(band[0]))


def speedups(base_rows, rows):
    """(sizes, baseline p50 / algorithm p50, (low, high) or None) over the sizes both have; the
    interval [baseline low / algorithm high, baseline high / algorithm low] holds every ratio both
    medians' intervals allow (conservative; as goal_tables.py)."""
    joined = rows.merge(base_rows, on="size_bytes", suffixes=("", "_base"))
    joined = joined[(joined["time_us_p50"] > 0) & (joined["time_us_p50_base"] > 0)]
    ratio = (joined["time_us_p50_base"] / joined["time_us_p50"]).to_numpy(dtype=float)
    band = None
    if has_interval(rows) and has_interval(base_rows):
        band = interval_or_none((joined[CI_LOW + "_base"] / joined[CI_HIGH]).to_numpy(dtype=float),
                                (joined[CI_HIGH + "_base"] / joined[CI_LOW]).to_numpy(dtype=float))
    return joined["size_bytes"].to_numpy(dtype=float), ratio, band


# ---------------------------------------------------------------- drawing

def setup_matplotlib():
    try:
        import matplotlib
    except ImportError as error:
        print(f"ringlab_plot.py: matplotlib is missing ({error}); install it with: "
              "apt-get install python3-matplotlib", file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "ringlab"  # stable ids: the same report gives the same SVG
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    return plt, FixedLocator, FuncFormatter, NullLocator


def size_axis(ax, sizes, mpl):
    """Log2 x axis labelled in B / KiB / MiB at powers of two (at most ~12 of them)."""
    _, FixedLocator, FuncFormatter, NullLocator = mpl
    ax.set_xscale("log", base=2)
    low = math.floor(math.log2(min(sizes)))
    high = math.ceil(math.log2(max(sizes)))
    distinct = sorted(set(int(size) for size in sizes))
    if len(distinct) <= 12 and all(size & (size - 1) == 0 for size in distinct):
        ticks = [float(size) for size in distinct]  # the measured sizes themselves (e.g. -f 8: 8 B 64 B 512 B)
    else:
        step = max(1, math.ceil((high - low + 1) / 12))
        ticks = [2.0 ** exponent for exponent in range(low, high + 1, step)]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: byte_label(int(round(value)))))
    if len(ticks) > 6:
        ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    if low == high:
        ax.set_xlim(2.0 ** (low - 1), 2.0 ** (high + 1))
    ax.set_xlabel("message size")


def log_axis(ax, values, mpl):
    """Log10 y axis labelled with plain numbers (1, 2, 5, 10, 20...; decades only past 4 decades)."""
    from matplotlib.ticker import LogLocator, NullFormatter
    _, _, FuncFormatter, _ = mpl
    ax.set_yscale("log")
    decades = math.log10(max(values)) - math.log10(min(values))
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if decades > 4 else (1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    if decades < 0.3:  # less than a factor 2: make sure two labels show
        middle = math.sqrt(max(values) * min(values))
        ax.set_ylim(middle / 2.5, middle * 2.5)


time_axis = log_axis  # the name scale_plot.py and older callers use


def new_figure(plt, title, subtitle):
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ax.set_title(f"{title}\n" + textwrap.fill(subtitle, 100, break_on_hyphens=False), fontsize=10)
    ax.grid(True, which="major", alpha=0.35)
    return fig, ax


def new_panels(plt, title, subtitle, placements):
    """A figure with one panel per placement side by side (out-of-place left), sharing the y axis."""
    fig, axes = plt.subplots(1, len(placements), figsize=(6.5 * len(placements) if len(placements) > 1 else 8, 5),
                             dpi=120, sharey=True, squeeze=False)
    fig.suptitle(f"{title}\n" + textwrap.fill(subtitle, 50 * len(placements) + 50, break_on_hyphens=False),
                 fontsize=10)
    panels = list(axes[0])
    for ax, placement in zip(panels, placements):
        ax.set_title(placement, fontsize=10)
        ax.grid(True, which="major", alpha=0.35)
    return fig, panels


def plot_line(ax, name, xs, ys, band=None):
    """One algorithm's line; band (low, high) draws error bars from the values to its ends."""
    color, marker = STYLE.get(name, (None, "o"))
    if band is None:
        ax.plot(xs, ys, label=name, color=color, marker=marker, markersize=4, linewidth=1.5)
        return
    values = numpy.asarray(ys, dtype=float)
    below = numpy.nan_to_num(values - numpy.asarray(band[0], dtype=float), nan=0.0).clip(min=0)
    above = numpy.nan_to_num(numpy.asarray(band[1], dtype=float) - values, nan=0.0).clip(min=0)
    ax.errorbar(xs, values, yerr=[below, above], label=name, color=color, marker=marker, markersize=4,
                linewidth=1.5, capsize=2, elinewidth=0.8)


def finish(ax):
    ax.figure.tight_layout()
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no data to plot", transform=ax.transAxes, ha="center", va="center")


def finish_panels(panels):
    for ax in panels:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="best")
        else:
            ax.text(0.5, 0.5, "no data to plot", transform=ax.transAxes, ha="center", va="center")
    panels[0].figure.tight_layout()


def write_atomically(target, write, mode="wb"):
    """Write TARGET by write(file) into a temporary file beside it, then os.replace: a reader sees
    the old file or the whole new one, never a half-written one."""
    handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp",
                                         dir=os.path.dirname(target) or ".")
    try:
        with os.fdopen(handle, mode) as file:
            write(file)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def save(plt, fig, out_dir, stem, written):
    """Write STEM.png and STEM.svg atomically (write_atomically)."""
    try:
        for fmt in FORMATS:
            target = os.path.join(out_dir, f"{stem}.{fmt}")
            write_atomically(target, lambda file, fmt=fmt: fig.savefig(
                file, format=fmt, metadata={"Date": None} if fmt == "svg" else None))
            written.append(target)
    finally:
        plt.close(fig)


def read_report(path, schema):
    """(report, problem) for a JSON report that must carry `schema`; problem is None when it does."""
    try:
        with open(path, encoding="utf-8") as file:
            report = json.load(file)
    except (OSError, ValueError) as error:
        return None, f"cannot read a JSON document: {error}"
    if not isinstance(report, dict) or report.get("schema") != schema:
        return None, f"not a {schema} report (schema: {report.get('schema') if isinstance(report, dict) else None!r})"
    return report, None


def list_written(written):
    """Prints the files a plot script wrote, one per line, as every script here ends."""
    for path in written:
        print(f"wrote {path}")


def positive_points(xs, ys, band):
    """The points a log axis can show (value > 0), with their band."""
    keep = numpy.asarray(ys, dtype=float) > 0
    return xs[keep], ys[keep], None if band is None else (band[0][keep], band[1][keep])


def draw_lines(mpl, report, panels, placements, points, skip=None):
    """One line per algorithm (but skip) in each placement's panel: points(rows of the algorithm and
    placement) -> (sizes, values, band or None); a size axis on every panel that got a line.
    Returns every value drawn (for the shared y axis)."""
    values = []
    for ax, placement in zip(panels, placements):
        sizes = []
        for name in report.algorithms():
            if name == skip:
                continue
            xs, ys, band = points(report.series(name, placement), placement)
            if len(xs):
                plot_line(ax, name, xs, ys, band)
                sizes += list(xs)
                values += list(ys)
        if sizes:
            size_axis(ax, sizes, mpl)
    return values


def busbw_figure(plt, mpl, report):
    fig, panels = new_panels(plt, "Bus bandwidth vs message size (at the median time; bars: its 95 % interval)",
                             report.subtitle(), report.placements)
    draw_lines(mpl, report, panels, report.placements, lambda rows, _placement: median_busbw(rows))
    if report.nranks == 1:
        for ax in panels:
            ax.text(0.02, 0.95, "N=1: busbw is 0 by definition", transform=ax.transAxes, va="top", fontsize=8)
    panels[0].set_ylim(bottom=0)  # after every panel is drawn: the shared axis' top covers them all
    panels[0].set_ylabel("busbw (GB/s)")
    finish_panels(panels)
    return fig


def latency_figure(plt, mpl, report):
    fig, panels = new_panels(plt, "Latency vs message size (median time per call; bars: its 95 % interval)",
                             report.subtitle(), report.placements)
    times = draw_lines(mpl, report, panels, report.placements,
                       lambda rows, _placement: positive_points(*median_times(rows)))
    if times:
        log_axis(panels[0], times, mpl)  # shared by the panels
    panels[0].set_ylabel("time per call (us), median")
    finish_panels(panels)
    return fig


def speedup_figure(plt, mpl, report, baseline):
    """The speed-up figure, or None (with a note) when the baseline has no results in the report."""
    placements = [p for p in report.placements if len(report.series(baseline, p))]
    if not placements:
        note(f"{report.path}: speedup_vs_baseline{report.suffix} skipped: the baseline {baseline} "
             f"has no {' or '.join(report.placements)} results in this report")
        return None
    fig, panels = new_panels(plt, f"Speed-up over {baseline} (its median time / the algorithm's; bars: 95 % interval)",
                             report.subtitle(), placements)
    ratios = [1.0] + draw_lines(mpl, report, panels, placements,
                                lambda rows, placement: positive_points(*speedups(report.series(baseline, placement), rows)),
                                skip=baseline)  # the baseline is the dashed line at 1
    for ax in panels:
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    log_axis(panels[0], ratios, mpl)  # log: 0.5x and 2x are as far from 1 on the plot
    panels[0].set_ylabel(f"speed-up over {baseline} (>1: faster), log scale")
    finish_panels(panels)
    return fig


def busbw_vs_ranks_figure(plt, mpl, reports):
    """(figure, the size drawn) or (None, None) with a note."""
    by_ranks = {}
    for report in reports:
        if report.nranks in by_ranks:
            note(f"busbw_vs_ranks uses {by_ranks[report.nranks].path} for N={report.nranks}, "
                 f"not {report.path}")
        else:
            by_ranks[report.nranks] = report
    chosen = [by_ranks[n] for n in sorted(by_ranks)]
    common = set.intersection(*({int(s) for s in report.frame["size_bytes"]} for report in chosen))
    if not common:
        note("busbw_vs_ranks skipped: the reports have no message size in common")
        return None, None
    size = max(common)

    def joined(values):
        unique = list(dict.fromkeys(values))
        return "/".join(unique)

    subtitle = (f"{joined(r.data['kind'] for r in chosen)}: backend {joined(r.config['backend'] for r in chosen)}, "
                f"N={','.join(str(r.nranks) for r in chosen)}, {joined(r.datatype for r in chosen)}, "
                f"op {joined(r.op for r in chosen)}, "
                f"host {joined(r.data['machine']['hostname'] for r in chosen)}")
    if not all(r.data["complete"] for r in chosen):
        subtitle += " (partial)"
    placements = [p for p in PLACEMENTS if any(p in r.placements for r in chosen)]
    fig, panels = new_panels(plt, f"Bus bandwidth (at the median time) vs number of ranks at {byte_label(size)}",
                             subtitle, placements)
    names = list(dict.fromkeys(name for r in chosen for name in r.config["algorithms"]))
    ranks = [r.nranks for r in chosen]
    for ax, placement in zip(panels, placements):
        for name in names:
            points = []
            for r in chosen:
                rows = r.series(name, placement)
                rows = rows[rows["size_bytes"] == size]
                if len(rows):
                    _, busbw, band = median_busbw(rows)
                    points.append((r.nranks, busbw[0], None if band is None else (band[0][0], band[1][0])))
            if points:
                bands = [p[2] for p in points]
                band = None if any(b is None for b in bands) else ([b[0] for b in bands], [b[1] for b in bands])
                plot_line(ax, name, [p[0] for p in points], [p[1] for p in points], band)
        if max(ranks) >= 8 * min(ranks):  # wide range (2..64): log2 axis
            _, FixedLocator, FuncFormatter, NullLocator = mpl
            ax.set_xscale("log", base=2)
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
        ax.set_xticks(ranks)
        ax.set_xlabel("number of ranks N")
    panels[0].set_ylim(bottom=0)
    panels[0].set_ylabel("busbw (GB/s)")
    finish_panels(panels)
    return fig, size


def busbw_vs_ranks_groups(reports, parts):
    """[(name suffix, reports)] for busbw_vs_ranks: every report together when each has one (type,
    op), as ever; else one group per (type, op), named after it (_float32_sum)."""
    if len(parts) == len(reports):
        return [("", reports)]
    groups = {}
    for part in parts:
        groups.setdefault((part.datatype, part.op), []).append(part)
    return [(f"_{datatype}_{op}", group) for (datatype, op), group in groups.items()]


def plot_report(plt, mpl, report, baseline, out_dir, written):
    """The three plots of one report into out_dir."""
    save(plt, busbw_figure(plt, mpl, report), out_dir, "busbw_vs_size" + report.suffix, written)
    save(plt, latency_figure(plt, mpl, report), out_dir, "latency_vs_size" + report.suffix, written)
    figure = speedup_figure(plt, mpl, report, baseline)
    if figure is not None:
        save(plt, figure, out_dir, "speedup_vs_baseline" + report.suffix, written)


# ---------------------------------------------------------------- main

def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="ringlab_plot.py",
        description="Plot ringlab.bench/1 reports into PNG and SVG files.",
        epilog="File names and rules: see docs/bench-report-format.md.")
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="ringlab.bench/1 JSON report")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write the plots into (created)")
    parser.add_argument("--baseline", metavar="NAME", choices=sorted(STYLE),
                        help="algorithm for speedup_vs_baseline (default: each report's config.baseline)")
    parser.add_argument("--placement", choices=PLACEMENTS,
                        help="plot only these results (default: out-of-place and in-place side by side, "
                             "each that the report has)")
    return parser.parse_args(argv)


def main(argv):
    arguments = parse_arguments(argv)
    status = 0
    reports = []
    for path in arguments.reports:
        try:
            report, problems = load(path, arguments.placement)
        except validate_report.SchemaUnavailable as error:
            print(f"ringlab_plot.py: {error}", file=sys.stderr)
            return 2
        if problems:
            validate_report.print_problems(path, problems)
            print(f"{path}: refused, nothing plotted for it", file=sys.stderr)
            status = 1
        else:
            reports.append(report)
    if not reports:
        return status

    if len(reports) > 1:
        counts = {}
        for report in reports:
            counts[report.nranks] = counts.get(report.nranks, 0) + 1
        seen = {}
        for report in reports:
            seen[report.nranks] = seen.get(report.nranks, 0) + 1
            report.suffix = f"_n{report.nranks}" + (f"_{seen[report.nranks]}" if counts[report.nranks] > 1 else "")

    try:
        os.makedirs(arguments.out, exist_ok=True)
    except OSError as error:
        print(f"ringlab_plot.py: cannot create {arguments.out}: {error.strerror or error}", file=sys.stderr)
        return 1

    mpl = setup_matplotlib()
    plt = mpl[0]
    written = []
    parts = [part for report in reports for part in report.by_type_op()]  # one per (type, op) of each report
    try:
        for part in parts:
            plot_report(plt, mpl, part, arguments.baseline or part.config["baseline"], arguments.out, written)
        for suffix, group in busbw_vs_ranks_groups(reports, parts):
            if len({part.nranks for part in group}) > 1:
                figure, _ = busbw_vs_ranks_figure(plt, mpl, group)
                if figure is not None:
                    save(plt, figure, arguments.out, "busbw_vs_ranks" + suffix, written)
    except OSError as error:
        print(f"ringlab_plot.py: cannot write into {arguments.out}: {error.strerror or error}", file=sys.stderr)
        status = 1
    list_written(written)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
