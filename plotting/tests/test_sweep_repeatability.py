#!/usr/bin/env python3
"""Tests plotting/sweep_repeatability.py on synthetic bench reports. Usage: test_sweep_repeatability.py TMPDIR"""
import copy
import os
import sys

from tool_run import Expectations, run_tool

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "sweep_repeatability.py")


def report(times_us, nranks=4):
    """A bench report with rows {(algorithm, bytes, placement): p50 us}."""
    return {"schema": "ringlab.bench/1", "config": {"nranks": nranks}, "results": [
        {"algorithm": algorithm, "size_bytes": size, "placement": placement, "time_us": {"p50": us}}
        for (algorithm, size, placement), us in times_us.items()]}


def run(directory, documents, *extra):
    return run_tool(TOOL, directory, ((f"sweep-{i}.json", document) for i, document in enumerate(documents)), *extra)


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    times = {("ring", size, placement): size / 1000.0
             for size in (1024, 65536, 1 << 20, 1 << 24) for placement in ("out-of-place", "in-place")}
    base = report(times)
    checks = Expectations()
    expect = checks.expect

    expect("same sweep", run(directory, [base, base]), 0, "ring    6 rows  median   0.0%")
    # two of six rows 30 % slower, one 10 %: median 5 %; the 1 KiB row is below --min-bytes
    moved = copy.deepcopy(base)
    factors = {(65536, "out-of-place"): 1.3, (1 << 20, "in-place"): 1.3, (1 << 24, "in-place"): 1.1,
               (1024, "in-place"): 5.0}
    for row in moved["results"]:
        row["time_us"]["p50"] *= factors.get((row["size_bytes"], row["placement"]), 1.0)
    expect("some rows moved", run(directory, [base, moved]), 0, "median   5.0%  largest  +30.0% (65536 B out-of-place)")
    expect("three sweeps", run(directory, [base, moved, base]), 0, "largest median over the pairs: ring 5.0%")
    expect("all sizes", run(directory, [base, moved], "--min-bytes", "0"), 0, "ring    8 rows")
    expect("one report", run(directory, [base]), 2, "give at least two bench reports")
    expect("other rank count", run(directory, [base, report(times, nranks=2)]), 2,
           "config.nranks is 2, ")
    expect("not json", run(directory, [base, "{oops"]), 2, "sweep-1.json: not valid JSON")
    zero = copy.deepcopy(base)
    zero["results"][3]["time_us"]["p50"] = 0
    expect("zero time", run(directory, [base, zero]), 2, "results[3].time_us.p50 must be a time > 0 us")
    expect("nothing shared", run(directory, [base, report({("ring", 8, "in-place"): 1.0})]), 2, "no row in common")
    expect("not a bench report", run(directory, [base, {"schema": "ringlab.train/1", "steps": []}]), 2,
           "sweep-1.json: not a ringlab.bench/1 report")
    return checks.report("sweep_repeatability")


if __name__ == "__main__":
    sys.exit(main())
