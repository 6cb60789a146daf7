#!/usr/bin/env python3
"""Time against rank count from ringlab.bench/1 reports of several N (usually `ringlab simulate`
on switch:N for N = 2 .. 4096).

Usage: plotting/scale_plot.py REPORT... --out DIR [--sizes 1K,256K,64M]

For every size (default: every size that all reports have) writes time_vs_ranks_<bytes>.png and
.svg into DIR: the out-of-place median time per call (time_us.p50) of each algorithm against N,
log-log, and prints a
Markdown table per size with the times, interval_paired / ring, and parameter_server / the fastest
other algorithm (where the server collapses). Reports are validated first (validate_report.py)
and read through ringlab_reports.
Exit status: 0 when everything was written, 1 when a report was refused or a file could not be
written, 2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_plot  # noqa: E402  (next to this file: styles and atomic saving)
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)
import validate_report  # noqa: E402


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip()
    if text and text[-1].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def load(paths):
    """{nranks: {(algorithm, bytes): median time_us}} from the out-of-place rows of each report."""
    by_ranks = {}
    for path in paths:
        report, problems = validate_report.validate_file(path)
        if problems:
            validate_report.print_problems(path, problems)
            return None
        nranks = report["config"]["nranks"]
        if nranks in by_ranks:
            print(f"{path}: a second report for N = {nranks}; pass one report per rank count", file=sys.stderr)
            return None
        frame = ringlab_reports.from_document(report, path, kind=("bench", "simulate"))
        rows = frame[frame["placement"] == "out-of-place"]
        by_ranks[nranks] = {(algorithm, int(size)): float(time) for algorithm, size, time
                            in zip(rows["algorithm"], rows["size_bytes"], rows["time_us_p50"])}
    return by_ranks


def table(by_ranks, size):
    algorithms = sorted({a for rows in by_ranks.values() for (a, b) in rows if b == size})
    lines = [f"### {size} B ({ringlab_plot.byte_label(size)})", "", "| N | " + " | ".join(f"{a} (us)" for a in algorithms) +
             " | interval_paired / ring | parameter_server / fastest other |",
             "|---|" + "---|" * (len(algorithms) + 2)]
    for nranks in sorted(by_ranks):
        rows = by_ranks[nranks]
        times = {a: rows.get((a, size)) for a in algorithms}
        cells = [f"{times[a]:.4g}" if times[a] is not None else "-" for a in algorithms]
        ratio = "-"
        if times.get("interval_paired") and times.get("ring"):
            ratio = f"{times['interval_paired'] / times['ring']:.3f}"
        others = [t for a, t in times.items() if a != "parameter_server" and t]
        collapse = "-"
        if times.get("parameter_server") and others:
            collapse = f"{times['parameter_server'] / min(others):.1f}"
        lines.append(f"| {nranks} | " + " | ".join(cells) + f" | {ratio} | {collapse} |")
    return "\n".join(lines) + "\n"


def plot(plt, by_ranks, size, subtitle, out_dir, written):
    figure, axes = ringlab_plot.new_figure(plt, f"time per all-reduce vs N, {ringlab_plot.byte_label(size)}", subtitle)
    algorithms = sorted({a for rows in by_ranks.values() for (a, b) in rows if b == size})
    for algorithm in algorithms:
        points = [(n, rows[(algorithm, size)]) for n, rows in sorted(by_ranks.items()) if (algorithm, size) in rows]
        ringlab_plot.plot_line(axes, algorithm, [p[0] for p in points], [p[1] for p in points])
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("ranks N")
    axes.set_ylabel("time per call (us)")
    ringlab_plot.finish(axes)
    ringlab_plot.save(plt, figure, out_dir, f"time_vs_ranks_{size}", written)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--sizes", help="comma-separated sizes (8, 1K, 64M); default: every common size")
    arguments = parser.parse_args()
    by_ranks = load(arguments.reports)
    if by_ranks is None:
        return 1
    common = set.intersection(*({b for (_, b) in rows} for rows in by_ranks.values()))
    try:
        sizes = sorted(parse_size(s) for s in arguments.sizes.split(",")) if arguments.sizes else sorted(common)
    except ValueError as error:
        parser.error(f"--sizes: {error}")
    missing = [s for s in sizes if s not in common]
    if missing:
        print(f"sizes {missing} are not in every report (common sizes: {sorted(common)})", file=sys.stderr)
        return 2
    os.makedirs(arguments.out, exist_ok=True)
    plt = ringlab_plot.setup_matplotlib()[0]
    subtitle = f"{len(by_ranks)} reports, N = {min(by_ranks)} .. {max(by_ranks)}, out-of-place median (p50)"
    written = []
    for size in sizes:
        print(table(by_ranks, size))
        try:
            plot(plt, by_ranks, size, subtitle, arguments.out, written)
        except OSError as error:
            print(f"scale_plot.py: cannot write into {arguments.out}: {error}", file=sys.stderr)
            return 1
    ringlab_plot.list_written(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
