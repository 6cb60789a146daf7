#!/usr/bin/env python3
"""plotting/validate_report.py refuses statistics that disagree (issue 28, part 1).

Usage: validate_statistics_refusals.py PLOTTING_DIR
Starts from plotting/tests/sample-report-n2.json with one row given the new fields, breaks one
rule at a time and expects check_report to name it. Prints "validate_statistics_refusals: N passed,
M failed"; exits 1 when any failed.
"""

import copy
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import validate_report  # noqa: E402


def good_report():
    with open(os.path.join(sys.argv[1], "tests", "sample-report-n2.json"), encoding="utf-8") as file:
        report = json.load(file)
    row = report["results"][1]  # min 32.562, p50 34.495, p99 48.311, max 48.311, avg 35.3007
    row["time_us"].update({"loop_avg": 30.0, "p50_ci95_low": 33.0, "p50_ci95_high": 36.0, "p50_ci95_coverage": 0.96})
    row["iters"] = 20
    row["converged"] = None
    row["rank_skew_us"] = {"min": 0.1, "p50": 0.2, "max": 3.0}
    report["config"]["converge"] = None
    return report


def broken(change):
    report = good_report()
    change(report["results"][1], report["config"])
    return report


CASES = [
    ("good", good_report(), None),
    ("avg below min", broken(lambda row, config: row["time_us"].update(avg=30.0, )), "is outside [min, max]"),
    ("p50 outside its interval", broken(lambda row, config: row["time_us"].update(p50_ci95_low=35.0)),
     "is outside its interval"),
    ("interval half given", broken(lambda row, config: row["time_us"].pop("p50_ci95_high")), "p50_ci95_high"),
    ("coverage above 1", broken(lambda row, config: row["time_us"].update(p50_ci95_coverage=1.5)), "coverage"),
    ("skew out of order", broken(lambda row, config: row["rank_skew_us"].update(p50=5.0)), "rank_skew_us"),
    ("converged without --converge", broken(lambda row, config: row.update(converged=True)),
     "expected true/false with --converge, null without"),
    ("null with --converge", broken(lambda row, config: config.update(converge={"rel": 0.05, "max_seconds": 10})),
     "expected true/false with --converge, null without"),
    ("converge rel of 1", broken(lambda row, config: config.update(converge={"rel": 1, "max_seconds": 10})),
     "config.converge"),
]

passed = failed = 0
for name, report, expected in CASES:
    problems = validate_report.check_report(copy.deepcopy(report))
    ok = not problems if expected is None else any(expected in problem for problem in problems)
    passed += ok
    failed += not ok
    print(f"{'ok' if ok else 'FAILED'}: {name}: {problems if problems else 'no problems'}")
print(f"validate_statistics_refusals: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
