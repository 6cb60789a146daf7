#!/usr/bin/env python3
"""Tests ringlab_reports.load(): every report kind from the committed results/ and from the hand-made
fixtures in reports/, the flattening of nested fields, bench rows with and without the median's
95 % interval, and the errors for a wrong file or kind.
Usage: test_ringlab_reports.py [unittest options]   (run with a python3 that has pandas)"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))  # the package in this checkout, installed or not
import ringlab_reports  # noqa: E402

REPORTS = os.path.join(HERE, "reports")
COMMITTED = {  # one real report of each kind, as the tools wrote them
    "bench": "results/bench/2026-12-03/mpi-n2.json",
    "simulate": "results/scale/2026-12-03/vs-n-switch/2.json",
    "compare": "results/calibration/2026-12-03-compare-fresh-n2.json",
    "train": "results/training/2026-12-03/dp-n4-run1.json",
    "replay": "results/replay/2026-12-03/replay-vgg16-miniimagenet-n4-run1.json",
}


def fixture(name):
    return os.path.join(REPORTS, name)


def document_of(path):
    with open(path, encoding="utf-8") as stream:
        return json.load(stream)


class CommittedReports(unittest.TestCase):
    def test_every_kind_loads_one_row_per_result(self):
        tables = {"bench": "results", "simulate": "results", "compare": "rows", "train": "steps", "replay": "results"}
        for kind, relative in COMMITTED.items():
            with self.subTest(kind=kind):
                path = os.path.join(ROOT, relative)
                frame = ringlab_reports.load(path)
                document = document_of(path)
                self.assertEqual(frame.attrs["kind"], kind)
                self.assertEqual(frame.attrs["table"], tables[kind])
                self.assertEqual(frame.attrs["document"], document)
                self.assertEqual(frame.attrs["path"], path)
                self.assertEqual(len(frame), len(document[tables[kind]]))
                self.assertEqual(ringlab_reports.load(path, kind=kind).attrs["kind"], kind)

    def test_bench_time_fields_are_flattened(self):
        path = os.path.join(ROOT, COMMITTED["bench"])
        frame = ringlab_reports.load(path)
        first = document_of(path)["results"][0]
        for statistic in ("avg", "min", "p50", "p99", "max", "cv"):
            self.assertEqual(frame[f"time_us_{statistic}"].iloc[0], first["time_us"][statistic])
        self.assertNotIn("time_us", frame.columns)

    def test_compare_models_and_replay_tables(self):
        compare = ringlab_reports.load(os.path.join(ROOT, COMMITTED["compare"]))
        self.assertIn("predicted_us_flow-level", compare.columns)
        self.assertIn("relative_error_closed-form", compare.columns)
        summary = ringlab_reports.load(os.path.join(ROOT, COMMITTED["compare"]), table="summary")
        self.assertIn("median_abs_error", summary.columns)
        speedups = ringlab_reports.load(os.path.join(ROOT, COMMITTED["replay"]), table="speedups")
        self.assertIn("speedup", speedups.columns)
        replay = ringlab_reports.load(os.path.join(ROOT, COMMITTED["replay"]))
        self.assertIn("mean_iteration_seconds", replay.columns)


class HandMadeReports(unittest.TestCase):
    def test_each_kind(self):
        expected = {"bench-no-ci.json": ("bench", 18), "bench-with-ci.json": ("bench", 18),
                    "simulate.json": ("simulate", 18), "compare.json": ("compare", 2), "train.json": ("train", 3),
                    "replay.json": ("replay", 3)}
        for name, (kind, rows) in expected.items():
            with self.subTest(name=name):
                frame = ringlab_reports.load(fixture(name))
                self.assertEqual((frame.attrs["kind"], len(frame)), (kind, rows))

    def test_rows_with_the_medians_interval(self):
        frame = ringlab_reports.load(fixture("bench-with-ci.json"))
        rows = document_of(fixture("bench-with-ci.json"))["results"]
        self.assertEqual(frame["time_us_p50_ci95_low"].iloc[0], rows[0]["time_us"]["p50_ci95_low"])
        self.assertEqual(frame["time_us_p50_ci95_high"].iloc[0], rows[0]["time_us"]["p50_ci95_high"])
        self.assertTrue((frame["time_us_p50_ci95_low"].dropna() <= frame["time_us_p50"][frame.index != 1]).all())
        # row 1 has no interval: NaN there, the rest keep theirs
        self.assertTrue(frame.loc[1, ["time_us_p50_ci95_low", "time_us_p50_ci95_high"]].isna().all())
        self.assertEqual(int(frame["time_us_p50_ci95_low"].notna().sum()), len(frame) - 1)

    def test_rows_without_the_medians_interval(self):
        frame = ringlab_reports.load(fixture("bench-no-ci.json"))
        self.assertNotIn("time_us_p50_ci95_low", frame.columns)
        self.assertIn("time_us_p50", frame.columns)

    def test_replay_rows_without_a_mean(self):
        frame = ringlab_reports.load(fixture("replay.json"))
        unavailable = frame[frame["available"] == False]  # noqa: E712
        self.assertEqual(len(unavailable), 1)
        self.assertTrue(unavailable["mean_iteration_seconds"].isna().all())

    def test_empty_results_still_have_the_key_columns(self):
        document = document_of(fixture("bench-no-ci.json"))
        document["results"] = []
        frame = ringlab_reports.from_document(document, "empty.json")
        self.assertEqual(len(frame), 0)
        for column in ("algorithm", "size_bytes", "placement"):
            self.assertIn(column, frame.columns)


class Errors(unittest.TestCase):
    def refused(self, path, pattern, **options):
        with self.assertRaisesRegex(ringlab_reports.ReportError, pattern):
            ringlab_reports.load(path, **options)

    def test_missing_file(self):
        self.refused(fixture("nonexistent.json"), r"nonexistent\.json: cannot read it: No such file")

    def test_cut_off_file(self):
        self.refused(fixture("bad-cut-off.json"), r"bad-cut-off\.json: not valid JSON: .* at line \d+, column \d+")

    def test_not_a_report_this_package_reads(self):
        self.refused(fixture("bad-topology.json"), r"bad-topology\.json: not a ringlab report this package reads "
                                                   r"\(schema 'ringlab\.topology/1'; this package reads ringlab\.bench/1")

    def test_row_missing_a_field(self):
        self.refused(fixture("bad-missing-size.json"), r"results\[2\]: missing field 'size_bytes'")

    def test_wrong_kind_names_both(self):
        self.refused(fixture("train.json"), r"train\.json: not a measured ringlab\.bench/1 report \(it is a "
                                            r"ringlab\.train/1 report, from ringlab train --json\)", kind="bench")
        self.refused(fixture("simulate.json"), r"not a measured ringlab\.bench/1 report \(it is a predicted "
                                               r"ringlab\.bench/1 report", kind="bench")
        self.refused(fixture("bench-no-ci.json"), r"not a ringlab\.compare/1 document", kind="compare")
        self.assertEqual(ringlab_reports.load(fixture("simulate.json"), kind=("bench", "simulate")).attrs["kind"],
                         "simulate")

    def test_unknown_table(self):
        self.refused(fixture("train.json"), r"a train report has no table 'results'; it has steps", table="results")

    def test_not_an_object(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "list.json")
            with open(path, "w", encoding="utf-8") as stream:
                stream.write("[1, 2]")
            self.refused(path, r"list\.json: not a ringlab report this package reads: the document is a JSON list")

    def test_unknown_kind_is_a_programming_error(self):
        with self.assertRaisesRegex(ValueError, "unknown report kind 'benchmark'"):
            ringlab_reports.load(fixture("train.json"), kind="benchmark")

    def test_report_error_is_a_value_error(self):
        self.assertTrue(issubclass(ringlab_reports.ReportError, ValueError))


class Units(unittest.TestCase):
    def test_byte_labels(self):
        cases = {0: "0 B", 8: "8 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 1 << 20: "1 MiB",
                 64 << 20: "64 MiB", 1 << 30: "1 GiB"}
        for size, label in cases.items():
            self.assertEqual(ringlab_reports.byte_label(size), label)


if __name__ == "__main__":
    unittest.main(verbosity=2)
