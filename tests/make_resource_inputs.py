#!/usr/bin/env python3
"""Writes the inputs of tests/hardening_resources.cmake into OUT_DIR: schedules whose verification
would need too much memory or work, and bench reports that make `ringlab compare` run long.

usage: make_resource_inputs.py OUT_DIR SAMPLE_REPORT (plotting/tests/sample-report-n2.json)
"""
import json
import os
import sys


def empty_schedule(nranks, nchunks, steps_of_rank0=0):
    """A well-formed all-reduce header whose ranks do nothing (the verifier must refuse or fail it)."""
    ranks = [{"rank": r, "steps": []} for r in range(nranks)]
    ranks[0]["steps"] = [[] for _ in range(steps_of_rank0)]
    return {"schema": "ringlab.schedule/1", "algorithm": "empty", "collective": "allreduce",
            "nranks": nranks, "nchunks": nchunks, "ranks": ranks}


def write(path, document):
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, separators=(",", ":"))


def main():
    out_dir, sample_path = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    # Issue 27: a 58 KB file (2048 ranks x 8192 chunks: 4 GiB of bitsets) and a 28 KB one (1 GiB).
    write(os.path.join(out_dir, "verify-state-4g.json"), empty_schedule(2048, 8192))
    write(os.path.join(out_dir, "verify-state-1g.json"), empty_schedule(1024, 8192))
    # Small state (60000 ranks x 1 chunk: 450 MB) but 80000 steps x 60000 ranks to visit.
    write(os.path.join(out_dir, "verify-work.json"), empty_schedule(60000, 1, 80000))
    with open(sample_path, encoding="utf-8") as sample:
        report = json.load(sample)
    report["config"]["segment_bytes"] = 1
    write(os.path.join(out_dir, "compare-segment-1.json"), report)
    # The sample's sizes, ring only, as if measured on 2000 ranks (8e7 flows: runs long, under the
    # flow limit) and on 20000 (8e9 flows: refused).
    report["config"]["segment_bytes"] = 1048576
    report["config"]["algorithms"] = ["ring"]
    report["config"]["baseline"] = "ring"
    report["results"] = [row for row in report["results"] if row["algorithm"] == "ring"]
    for nranks in (2000, 20000):
        report["config"]["nranks"] = nranks
        write(os.path.join(out_dir, f"compare-{nranks}-ranks.json"), report)


if __name__ == "__main__":
    main()
