#!/usr/bin/env python3
"""How far bench sweeps of the same job differ from one another: the measurement's own spread.

A model compared with one sweep cannot be judged more finely than the sweep repeats: when the
same `ringlab bench` run again a minute later moves a row by 25 %, a prediction's 15 % error on
either run says as much about the machine as about the model. This reads two or more bench
reports of the same job (same ranks; the rows they share) and prints, per algorithm, how much
each report differs from the one before it, on the statistic `ringlab compare` reads
(time_us.p50, the median call) and over the sizes it scores (>= --min-bytes, both placements).

Steps:
  1. per report (read through ringlab_reports), {(algorithm, bytes, placement): time_us.p50} over
     sizes >= --min-bytes
     (mpi-native too: it is a measurement like any other);
  2. per consecutive pair of reports (in the order given) and algorithm, over the rows both
     have: median |later / earlier - 1|, and the row that moved most;
  3. per algorithm, the largest of those medians over the pairs.
Exit status: 0, or 2 on bad input (a message names the file and the field): fewer than two
reports, different rank counts, no row in common.
Usage: sweep_repeatability.py REPORT.json REPORT.json [...] [--min-bytes 65536]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)


class BadInput(Exception):
    pass


def rows_of(path, min_bytes):
    """(nranks, {(algorithm, bytes, placement): p50 us}) of one bench report, read through ringlab_reports."""
    try:
        frame = ringlab_reports.load(path, kind=("bench", "simulate"))
    except ringlab_reports.ReportError as error:
        raise BadInput(str(error)) from error
    config = frame.attrs["document"].get("config")
    nranks = config.get("nranks") if isinstance(config, dict) else None
    if not isinstance(nranks, int) or isinstance(nranks, bool) or nranks < 1:
        raise BadInput(f"{path}: config.nranks must be a rank count >= 1, got {nranks!r}")
    if len(frame) and "time_us_p50" not in frame.columns:
        raise BadInput(f"{path}: results[0]: missing field time_us.p50 (the median call)")
    rows = {}
    for i, (algorithm, size, placement, median) in enumerate(zip(frame["algorithm"], frame["size_bytes"],
                                                                 frame["placement"], frame.get("time_us_p50", []))):
        if not isinstance(median, (int, float)) or isinstance(median, bool) or not median > 0:
            raise BadInput(f"{path}: results[{i}].time_us.p50 must be a time > 0 us, got {median!r}")
        if int(size) >= min_bytes:
            rows[(str(algorithm), int(size), str(placement))] = float(median)
    return nranks, rows


def spread(reports):
    """[(earlier, later, {algorithm: (median |change|, rows, (largest change, its key))})] per
    consecutive pair of (path, rows)."""
    pairs = []
    for (earlier, before), (later, after) in zip(reports, reports[1:]):
        shared = sorted(set(before) & set(after))
        if not shared:
            raise BadInput(f"{earlier} and {later} have no row in common (same sizes and algorithms?)")
        by_algorithm = {}
        for algorithm in sorted({key[0] for key in shared}):
            changes = {key: after[key] / before[key] - 1 for key in shared if key[0] == algorithm}
            largest = max(changes.items(), key=lambda item: abs(item[1]))
            by_algorithm[algorithm] = (statistics.median(abs(c) for c in changes.values()), len(changes),
                                       (largest[1], largest[0]))
        pairs.append((earlier, later, by_algorithm))
    return pairs


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--min-bytes", type=int, default=65536,
                        help="smallest size compared (default 65536, compare's default)")
    arguments = parser.parse_args(argv)
    if len(arguments.reports) < 2:
        print("sweep_repeatability: give at least two bench reports of the same job", file=sys.stderr)
        return 2
    if arguments.min_bytes < 0:
        print(f"sweep_repeatability: --min-bytes must be >= 0, got {arguments.min_bytes}", file=sys.stderr)
        return 2
    try:
        read = [(path, *rows_of(path, arguments.min_bytes)) for path in arguments.reports]
        first_path, first_ranks, _ = read[0]
        for path, nranks, _ in read[1:]:
            if nranks != first_ranks:
                raise BadInput(f"{path}: config.nranks is {nranks}, {first_path} has {first_ranks}: "
                               "compare sweeps of the same job")
        pairs = spread([(path, rows) for path, _, rows in read])
    except BadInput as error:
        print(f"sweep_repeatability: {error}", file=sys.stderr)
        return 2
    print(f"# sweep repeatability: N = {first_ranks}, time_us.p50, sizes >= {arguments.min_bytes} B, both placements")
    print("# per pair of consecutive reports: median |later / earlier - 1| over the rows both have; "
          "largest single change")
    worst = {}
    for earlier, later, by_algorithm in pairs:
        print(f"# {earlier} -> {later}")
        for algorithm, (median, count, (largest, key)) in by_algorithm.items():
            worst[algorithm] = max(worst.get(algorithm, 0.0), median)
            print(f"{algorithm:>20} {count:4d} rows  median {median:6.1%}  largest {largest:+7.1%} "
                  f"({key[1]} B {key[2]})")
    print("# largest median over the pairs: " + ", ".join(f"{a} {m:.1%}" for a, m in worst.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
