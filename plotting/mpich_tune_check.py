#!/usr/bin/env python3
"""MPI_Allreduce under MPICH's default selection against the same call under the selection file
`ringlab tune --mpich-json` wrote (scripts/mpich-tune-check.sh). Reads the bench reports of the
interleaved repeats, named CONFIG-REPEAT.json (CONFIG: default, mpir, tuned), and prints one row
per size: the median over repeats of each configuration's out-of-place p50 time, and the ratios
tuned/default and tuned/mpir (below 1: the tuned file is faster). Writes summary.md to --out.

  plotting/mpich_tune_check.py OUT/*.json --out OUT
"""
import argparse
import json
import pathlib
import statistics
import sys


def times(path):
    """{size_bytes: out-of-place p50 time in us} of the mpi-native rows of one report."""
    report = json.loads(pathlib.Path(path).read_text())
    return {row["size_bytes"]: row["time_us"]["p50"] for row in report["results"]
            if row["algorithm"] == "mpi-native" and row["placement"] == "out-of-place"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--out", required=True)
    arguments = parser.parse_args()
    runs = {}
    for path in arguments.reports:
        config = pathlib.Path(path).stem.rsplit("-", 1)[0]
        if config not in ("default", "mpir", "tuned"):
            sys.exit(f"mpich_tune_check.py: {path}: the name must be CONFIG-REPEAT.json, CONFIG default|mpir|tuned")
        runs.setdefault(config, []).append(times(path))
    if set(runs) != {"default", "mpir", "tuned"}:
        sys.exit(f"mpich_tune_check.py: need reports of default, mpir and tuned; got {sorted(runs)}")
    sizes = sorted(set.intersection(*(set(run) for config in runs.values() for run in config)))
    lines = ["| bytes | default (us) | mpir (us) | tuned (us) | tuned/default | tuned/mpir |", "|---|---|---|---|---|---|"]
    ratios = []
    for size in sizes:
        median = {config: statistics.median(run[size] for run in reports) for config, reports in runs.items()}
        ratio = median["tuned"] / median["default"]
        ratios.append(ratio)
        lines.append(f"| {size} | {median['default']:.1f} | {median['mpir']:.1f} | {median['tuned']:.1f} | {ratio:.3f} | "
                     f"{median['tuned'] / median['mpir']:.3f} |")
    geomean = statistics.geometric_mean(ratios)
    lines.append(f"\nrepeats per configuration: {min(len(r) for r in runs.values())}; geometric mean of tuned/default "
                 f"over {len(sizes)} sizes: {geomean:.3f}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    pathlib.Path(arguments.out, "summary.md").write_text(text)


if __name__ == "__main__":
    main()
