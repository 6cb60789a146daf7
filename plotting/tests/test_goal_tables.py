#!/usr/bin/env python3
"""Tests plotting/goal_tables.py (speedup-vs-mpi.md) on hand-made bench reports: bound and
oversubscribed placements, the ratio's interval arithmetic, refusals. Usage: test_goal_tables.py TMPDIR"""
import copy
import os
import sys

from tool_run import Expectations, run_tool

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "goal_tables.py")
MIB = 1 << 20


def row(algorithm, size, placement, p50, low, high):
    return {"algorithm": algorithm, "size_bytes": size, "placement": placement, "busbw_gbps": size / p50 / 1e3,
            "time_us": {"avg": p50, "p50": p50, "p50_ci95_low": low, "p50_ci95_high": high}}


def report(nranks, rows, **placement):
    config = {"nranks": nranks, "algorithms": ["ring", "interval_paired", "mpi-native"], **placement}
    return {"schema": "ringlab.bench/1", "config": config, "machine": {"memcpy_gbps": 5.0}, "results": rows}


BOUND = {"oversubscribed": False, "bound": True, "ranks_per_host": 2, "usable_cores": 2}
OVERSUBSCRIBED = {"oversubscribed": True, "bound": False, "ranks_per_host": 4, "usable_cores": 2}

# time_us p50 [low, high] per (algorithm, size, placement); speed-ups worked out by hand below.
PERFORMANCE_ROWS = [
    row("mpi-native", MIB, "out-of-place", 200, 190, 210),
    row("ring", MIB, "out-of-place", 100, 95, 105),              # 2.00 [190/105, 210/95] = [1.81, 2.21]
    row("interval_paired", MIB, "out-of-place", 250, 240, 260),  # 0.80 [190/260, 210/240] = [0.73, 0.88]
    row("mpi-native", MIB, "in-place", 100, 90, 110),
    row("ring", MIB, "in-place", 100, 80, 120),                  # 1.00 [90/120, 110/80] = [0.75, 1.38]
    row("interval_paired", MIB, "in-place", 50, 45, 55),         # 2.00 [90/55, 110/45] = [1.64, 2.44]
    row("mpi-native", 512 << 10, "out-of-place", 10, 9, 11),     # below 1 MiB: not in the table
    row("ring", 512 << 10, "out-of-place", 10, 9, 11),
    row("interval_paired", 512 << 10, "out-of-place", 10, 9, 11),
]
LATENCY_ROWS = [
    row("ring", 8, "out-of-place", 50, 45, 55),
    row("interval_paired", 8, "out-of-place", 30, 28, 32),       # faster: 32 < 45
    row("ring", 4096, "out-of-place", 60, 50, 70),
    row("interval_paired", 4096, "out-of-place", 65, 55, 75),    # overlapping intervals
]


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    checks = Expectations()
    expect = checks.expect
    bound = report(2, PERFORMANCE_ROWS, **BOUND)
    oversubscribed = report(4, LATENCY_ROWS + PERFORMANCE_ROWS, **OVERSUBSCRIBED)

    def run(*documents):
        return run_tool(TOOL, directory, ((f"report-{i}.json", d) for i, d in enumerate(documents)))

    both = run(bound, oversubscribed)
    expect("ratio and interval", both, 0, "| 2 | 1 MiB | out-of-place | 2.00 [1.81, 2.21] | 0.80 [0.73, 0.88] |")
    expect("in-place row", both, 0, "| 2 | 1 MiB | in-place | 1.00 [0.75, 1.38] | 2.00 [1.64, 2.44] |")
    expect("where MPICH wins", both, 0, "MPICH's MPI_Allreduce wins (speed-up interval entirely below 1) for "
                                        "interval_paired at N = 2, 1 MiB out-of-place.")
    expect("where ringlab wins", both, 0, "ringlab's algorithm wins (interval entirely above 1) for 2 of 4: ")
    expect("undecided", both, 0, "Undecided (the interval holds 1) for ring at N = 2, 1 MiB in-place.")
    expect("oversubscribed labelled", both, 0, "report-1.json`: N = 4, **oversubscribed**: 4 ranks on 2 usable cores")
    expect("latency labelled", both, 0, "Latency order at N = 4 (oversubscribed: correctness and latency ordering only)")
    expect("latency order", both, 0, "N = 4: interval_paired faster at 1 of 2 sizes (1 with overlapping intervals).")
    # The oversubscribed report's rows never reach the speed-up table, nor sizes outside 1 MiB .. 64 MiB.
    checks.cases += 1
    if "| 4 | 1 MiB |" in both[1] or "| 2 | 512 KiB |" in both[1]:
        checks.failures.append(f"rows that must be left out of the speed-up table are in it: {both[1]}")

    expect("only oversubscribed", run(oversubscribed), 1, "no report from ranks bound to a core each")
    unbound = report(2, PERFORMANCE_ROWS, **{**BOUND, "bound": False})
    expect("unbound refused", run(unbound), 1, "ranks not bound to their own cores (bind them: mpiexec -bind-to core)")
    expect("old report refused", run(report(2, PERFORMANCE_ROWS)), 1,
           "placement not recorded (a report older than the oversubscription check)")
    no_interval = copy.deepcopy(bound)
    del no_interval["results"][1]["time_us"]["p50_ci95_low"]
    expect("no interval refused", run(no_interval), 1, "rows without time_us.p50_ci95_low/high")
    no_mpi = report(2, [r for r in PERFORMANCE_ROWS if r["algorithm"] != "mpi-native"], **BOUND)
    expect("no baseline refused", run(no_mpi), 1, "no mpi-native rows")
    expect("other report refused", run({"schema": "ringlab.train/1"}), 1, "not a measured ringlab.bench/1 report")
    expect("no reports", run(), 1, "Usage: plotting/goal_tables.py")
    return checks.report("goal_tables")


if __name__ == "__main__":
    sys.exit(main())
