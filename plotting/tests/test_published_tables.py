#!/usr/bin/env python3
"""Tests plotting/published_tables.py (scripts/published-tables.sh) on a hand-made table and
predictions whose errors and fit are worked out below. Usage: test_published_tables.py TMPDIR"""
import copy
import json
import os
import subprocess
import sys

from tool_run import Expectations

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "published_tables.py")
MIB = 1 << 20
RANKS = 4  # busbw = algbw * 1.5; the fit's smallest row: the first with a float per rank, 16 B


def measured(size, oop, ip=None):
    return {"bytes": size, "oop_us": oop, "ip_us": oop if ip is None else ip, "oop_wrong": "0", "ip_wrong": "0"}


# 8 B: a warm-up outlier below 4 x 4 B, not fitted. 16 B and 4 MiB are the model
# T = 10 + 4 lat + 1.5 size / bw (us, lat in us) at lat = 2 us, bw = 1e10 B/s.
TABLE = {"id": 9, "collective": "all_reduce_perf", "system": {"gpu": "test GPU", "nranks": RANKS, "nodes": 1},
         "rows": [measured(8, 100.0), measured(16, 30.0, 18.0024), measured(MIB, 100.0), measured(2 * MIB, 200.0),
                  measured(4 * MIB, 647.1456)]}
TABLES = {"about": "fixture", "tables": [TABLE, {"id": 10, "collective": "sendrecv_perf", "rows": []}]}
MAPPING = {"tables": [{"id": 9, "preset": "switch:4", "algorithms": "nccl_ring,nccl_tree",
                       "level": {"lat": "lat", "lat_value": 1e-6, "bw": "bw", "bw_value": 2e10}}]}


def report(times, kind="predicted"):
    """A predicted ringlab.bench/1 report: times = {algorithm: {size: us}}."""
    rows = [{"algorithm": algorithm, "size_bytes": size, "placement": placement, "time_us": {"p50": us, "avg": us}}
            for algorithm, by_size in times.items() for size, us in by_size.items()
            for placement in ("out-of-place", "in-place")]
    return {"schema": "ringlab.bench/1", "kind": kind, "config": {"nranks": RANKS}, "results": rows}


def probe(lat_us, bw):
    """The model at the two fitted sizes, and a slower algorithm that the fit must ignore."""
    model = {size: 10 + 4 * lat_us + 1.5 * size / bw * 1e6 for size in (16, 4 * MIB)}
    return report({"nccl_ring": model, "nccl_tree": {size: 2 * us for size, us in model.items()}})


# A priori busbw errors >= 1 MiB: 1 MiB 100/125 -> 20 %, 2 MiB 200/160 -> 25 %, 4 MiB 1/1.1 -> 9.1 %:
# median 20.0 %. Calibrated time errors but the fitted rows: 8 B 8 %, 1 MiB 5 %, 2 MiB 15 %: median 8.0 %.
APRIORI = report({"nccl_tree": {8: 50.0, 16: 60.0, MIB: 300.0, 2 * MIB: 500.0, 4 * MIB: 900.0},
                  "nccl_ring": {8: 70.0, 16: 80.0, MIB: 125.0, 2 * MIB: 160.0, 4 * MIB: 647.1456 * 1.1}})
CALIBRATED = report({"nccl_ring": {8: 92.0, 16: 18.0024, MIB: 105.0, 2 * MIB: 230.0, 4 * MIB: 647.1456}})


def write(path, document):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(document, stream)
    return path


def run(*arguments):
    done = subprocess.run([sys.executable, TOOL, *arguments], capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    check = Expectations()
    tables = write(os.path.join(directory, "tables.json"), TABLES)
    mapping = write(os.path.join(directory, "mapping.json"), MAPPING)
    probes = [write(os.path.join(directory, f"{name}.json"), probe(lat, bw))
              for name, lat, bw in (("base", 1, 2e10), ("lat", 2, 2e10), ("bw", 1, 1.6e10))]
    fit_options = ["--lat0", "1e-6", "--dlat", "1e-6", "--bw0", "2e10", "--bw1", "1.6e10"]
    sweep = copy.deepcopy(TABLES)
    sweep["tables"][0]["rows"] = [measured(size, 10.0) for size in (8, 32, 128, 512)]
    check.expect("sizes: the sweep (-b -e -f), then 16 B's successor 32 B (a float a rank) and the largest",
                 run("sizes", write(os.path.join(directory, "sweep.json"), sweep), "9"), 0, "8 512 4 32 512")
    check.expect("sizes: refuses rows that are not one sweep (8, 16 B, then 1 MiB)", run("sizes", tables, "9"), 1,
                 "sizes 8, 16, ... are not one -b .. -e -f F sweep")
    check.expect("text: the rows as all_reduce_perf prints them, a rank line a rank",
                 run("text", tables, "9"), 0, "#  Rank  3 Group")
    check.expect("text: a row's columns", run("text", tables, "9"), 0,
                 "          16             4     float     sum      -1       30    0.00    0.00       0  18.0024")
    check.expect("fit: both points give back lat and bw", run("fit", tables, "9", *probes, *fit_options),
                 0, "lat=2e-06 bw=1e+10")
    slow = copy.deepcopy(TABLES)
    slow["tables"][0]["rows"][1] = measured(16, 5.0)  # faster than any latency allows
    check.expect("fit: a negative latency is set to 0, bw from the largest row",
                 run("fit", write(os.path.join(directory, "slow.json"), slow), "9", *probes, *fit_options),
                 0, "note: the latency fit fell below 0")
    check.expect("fit: refuses another collective", run("fit", tables, "10", *probes, *fit_options), 1,
                 "table 10 is 'sendrecv_perf', not all_reduce_perf")
    check.expect("fit: refuses a missing table", run("fit", tables, "11", *probes, *fit_options), 1,
                 "no table with id 11")
    out = os.path.join(directory, "out")
    write(os.path.join(out, "9", "apriori.json"), APRIORI)
    write(os.path.join(out, "9", "calibrated.json"), CALIBRATED)
    result = run("analyse", tables, mapping, out)
    check.expect("analyse: a priori median 20.0 %, PASS", result, 0, "| 5 | 20.0 % | PASS | 8.0 % | PASS |")
    check.expect("analyse: the fitted rows are met", result, 0, "| 0.0 % |")
    check.expect("analyse: the algorithm switch and the busbw fall", result, 0,
                 "| 9 | nccl_tree -> nccl_ring at 1 MiB | 4 MiB |")
    check.expect("analyse: the plot", result, 0, os.path.join(out, "9", "busbw.svg"))
    check.expect("analyse: a goal missed is exit 3", run("analyse", tables, mapping, out, "--calibrated-goal", "5"),
                 3, "| 8.0 % | MISS |")
    write(os.path.join(out, "9", "calibrated.json"), report({"nccl_ring": {16: 1.0}}))
    check.expect("analyse: refuses a prediction short of a size", run("analyse", tables, mapping, out), 1,
                 "table 9: no prediction of 8 B")
    write(os.path.join(out, "9", "calibrated.json"), report({"nccl_ring": {16: 1.0}}, kind="measured"))
    check.expect("analyse: refuses a measured report", run("analyse", tables, mapping, out), 1,
                 "calibrated.json: not a predicted ringlab.bench/1 report")
    return check.report("test_published_tables")


if __name__ == "__main__":
    sys.exit(main())
