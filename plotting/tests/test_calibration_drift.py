#!/usr/bin/env python3
"""Tests plotting/calibration_drift.py on synthetic calibrations. Usage: test_calibration_drift.py TMPDIR"""
import copy
import os
import sys

from tool_run import Expectations, run_tool

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "calibration_drift.py")


def calibration(ping_pong_us, reduce_us, concurrent_us=None):
    """A calibration record with one pair (0, 1): {bytes: one-way us}, {bytes: reduce us} and
    {bytes: slowest rank's concurrent round us} (default: the ping-pong times)."""
    concurrent_us = concurrent_us or ping_pong_us
    return {"calibration": {
        "ping_pong": {"pairs": [{"ranks": [0, 1], "samples": [
            {"bytes": size, "one_way_median_us": us} for size, us in ping_pong_us.items()]}]},
        "concurrent": {"samples": [{"bytes": size, "slowest_rank_median_us": us} for size, us in concurrent_us.items()]},
        "reduce": {"samples": [{"bytes": size, "median_us": us} for size, us in reduce_us.items()]}}}


def run(directory, before, after, *extra):
    return run_tool(TOOL, directory, (("before.json", before), ("after.json", after)), *extra)


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    ping_pong = {8: 0.3, 65536: 2.0, 1 << 20: 30.0, 1 << 24: 900.0}
    reduce = {65536: 1.2, 1 << 20: 20.0}
    base = calibration(ping_pong, reduce)
    checks = Expectations()
    expect = checks.expect

    expect("same file", run(directory, base, base), 0, "ping-pong 0.0%, concurrent 0.0%, reduce 0.0%")
    # latency-bound sizes below --min-bytes do not count: 8 B three times slower is no drift
    slow_small = copy.deepcopy(base)
    slow_small["calibration"]["ping_pong"]["pairs"][0]["samples"][0]["one_way_median_us"] = 0.9
    expect("below min bytes", run(directory, base, slow_small), 0, "ping-pong 0.0%")
    # one of three sizes 60 % slower: mean change 20 % > 10 %
    slower = copy.deepcopy(base)
    slower["calibration"]["ping_pong"]["pairs"][0]["samples"][2]["one_way_median_us"] = 48.0
    expect("one size slower", run(directory, base, slower), 1, "ping-pong 20.0%")
    expect("looser tolerance", run(directory, base, slower, "--tolerance", "0.25"), 0, "all within 25%")
    faster_reduce = calibration(ping_pong, {65536: 0.6, 1 << 20: 10.0})
    expect("reduce halved", run(directory, base, faster_reduce), 1, "reduce 50.0%")
    # two ranks at once 50 % slower at every size while a lone transfer is not: changed
    slower_together = calibration(ping_pong, reduce, {size: us * 1.5 for size, us in ping_pong.items()})
    expect("concurrent slower", run(directory, base, slower_together), 1, "ping-pong 0.0%, concurrent 50.0%")
    expect("not json", run(directory, base, "{oops"), 2, "after.json: not valid JSON")
    expect("not a calibration", run(directory, base, {"schema": "ringlab.topology/1"}), 2,
           "missing field 'calibration.ping_pong.pairs'")
    negative = copy.deepcopy(base)
    negative["calibration"]["reduce"]["samples"][1]["median_us"] = -1
    expect("negative time", run(directory, base, negative), 2, "calibration.reduce.samples[1].median_us must be")
    expect("bad tolerance", run(directory, base, base, "--tolerance", "2"), 2, "--tolerance must lie in (0, 1)")
    # a per-CPU calibration whose cross-CPU pairs disagree among themselves changed while it ran,
    # though its medians match the other file's: not steady
    per_cpu = copy.deepcopy(base)
    per_cpu["calibration"]["cpu_classes"] = {
        "what": "ping-pong pairs split by CPU", "waiting_rank_cost": {"cost": 0.4},
        "same_cpu": {"pairs": 2, "median_abs_relative_residual": 0.09},
        "cross_cpu": {"pairs": 4, "median_abs_relative_residual": 0.08}}
    expect("classes fit", run(directory, per_cpu, per_cpu), 0, "all within 10%")
    unsteady = copy.deepcopy(per_cpu)
    unsteady["calibration"]["cpu_classes"]["cross_cpu"]["median_abs_relative_residual"] = 0.47
    expect("a class does not fit", run(directory, unsteady, per_cpu), 1,
           "a class of pairs that did not run alike: before: cross_cpu pairs fit with 47.0% (median |residual|, over 25%)")
    expect("looser class residual", run(directory, unsteady, per_cpu, "--max-class-residual", "0.5"), 0,
           "all within 10%")
    broken = copy.deepcopy(per_cpu)
    broken["calibration"]["cpu_classes"]["same_cpu"]["median_abs_relative_residual"] = "high"
    expect("bad class residual", run(directory, per_cpu, broken), 2,
           "calibration.cpu_classes.same_cpu.median_abs_relative_residual must be a number >= 0")
    return checks.report("calibration_drift")


if __name__ == "__main__":
    sys.exit(main())
