#!/usr/bin/env python3
"""Checks that every row of a measured ringlab.bench/1 report has statistics that agree.

Usage: check_bench_statistics.py REPORT [--converged any|true|false|some-false|null]

Every row must have the issue-28 fields (time_us.loop_avg, the median's interval, iters,
converged, rank_skew_us) and satisfy, exactly (they hold by construction, no tolerance):
  min <= p50 <= p99 <= max, min <= avg <= max, p50_ci95_low <= p50 <= p50_ci95_high,
  0 <= p50_ci95_coverage <= 1 (>= 0.95 from 6 samples on), rank_skew_us min <= p50 <= max.
--converged: what every row's `converged` must be (true, false or null), or some-false: at least
one row false. Prints "check_bench_statistics: N rows ok" and exits 0, or lists the problems and
exits 1.
"""

import argparse
import json
import sys

TIME_FIELDS = ("avg", "min", "p50", "p99", "max", "cv", "loop_avg", "p50_ci95_low", "p50_ci95_high",
               "p50_ci95_coverage")


def row_problems(row):
    name = f"{row.get('algorithm')} {row.get('size_bytes')} B {row.get('placement')}"
    time = row.get("time_us", {})
    missing = [f"time_us.{field}" for field in TIME_FIELDS if field not in time]
    missing += [field for field in ("iters", "converged", "rank_skew_us") if field not in row]
    if missing:
        return [f"{name}: missing {', '.join(missing)}"]
    problems = []
    if not time["min"] <= time["p50"] <= time["p99"] <= time["max"]:
        problems.append(f"{name}: min {time['min']} <= p50 {time['p50']} <= p99 {time['p99']} <= max {time['max']} fails")
    if not time["min"] <= time["avg"] <= time["max"]:
        problems.append(f"{name}: min {time['min']} <= avg {time['avg']} <= max {time['max']} fails")
    if not time["p50_ci95_low"] <= time["p50"] <= time["p50_ci95_high"]:
        problems.append(f"{name}: ci_low {time['p50_ci95_low']} <= p50 {time['p50']} <= ci_high "
                        f"{time['p50_ci95_high']} fails")
    coverage = time["p50_ci95_coverage"]
    if not 0 <= coverage <= 1 or (row["iters"] >= 6 and coverage < 0.95):
        problems.append(f"{name}: coverage {coverage} with {row['iters']} samples")
    skew = row["rank_skew_us"]
    if not 0 <= skew["min"] <= skew["p50"] <= skew["max"]:
        problems.append(f"{name}: rank skew min {skew['min']} <= p50 {skew['p50']} <= max {skew['max']} fails")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--converged", choices=["any", "true", "false", "some-false", "null"], default="any")
    arguments = parser.parse_args()
    with open(arguments.report, encoding="utf-8") as file:
        report = json.load(file)
    rows = report["results"]
    problems = [] if rows else ["the report has no rows"]
    for row in rows:
        problems += row_problems(row)
    flags = [row.get("converged") for row in rows]
    expected = {"true": True, "false": False, "null": None}.get(arguments.converged)
    if arguments.converged in ("true", "false", "null"):
        problems += [f"row {index}: converged is {json.dumps(flag)}, expected {json.dumps(expected)}"
                     for index, flag in enumerate(flags) if flag is not expected]
    if arguments.converged == "some-false" and False not in flags:
        problems.append("no row has converged false")
    for problem in problems:
        print(f"check_bench_statistics: {problem}")
    if problems:
        return 1
    print(f"check_bench_statistics: {len(rows)} rows ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
