#!/usr/bin/env python3
"""Plot ringlab.replay/1 reports (`ringlab replay --json`, `ringlab simulate --workload --json`).

Usage: plotting/replay_plot.py REPORT... --out DIR

Writes into DIR (PNG and SVG each):
  speedup_vs_ranks   hybrid-over-dp speed-up (dp iteration time / hybrid iteration time) against
                     the ranks, one line per algorithm and report kind (measured / predicted),
                     from all the reports given (typically one per N)
  iteration_breakdown  compute, communication and idle seconds per iteration of every available
                     (algorithm, mode) of the last report, stacked
Reports are read through ringlab_reports. A file that is not a ringlab.replay/1 report, or lacks a
field the plots need, is refused with a
message naming the file and the field; nothing is written then.
Exit status: 0 when everything was written, 1 on a refused report or a write error, 2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_plot  # noqa: E402  (next to this file: styles and atomic saving)
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)

SCHEMA = "ringlab.replay/1"
PARTS = (("compute_seconds", "compute", "tab:blue"),
         ("communication_seconds", "communication", "tab:orange"),
         ("idle_seconds", "idle", "tab:gray"))


def load(path):
    """(results as a DataFrame with the report in attrs["document"], problem): problem is None when
    the report has what the plots need."""
    try:
        results = ringlab_reports.load(path, kind="replay")
        speedups = ringlab_reports.load(path, kind="replay", table="speedups")
    except ringlab_reports.ReportError as error:
        return None, str(error).removeprefix(f"{path}: ")
    report = results.attrs["document"]
    for key in ("kind", "nranks", "config"):
        if key not in report:
            return None, f"missing field '{key}'"
    for index, row in results.reset_index(drop=True).iterrows():
        if row["available"] and not all(isinstance(row.get(f"mean_{k}"), (int, float)) for k, _, _ in PARTS):
            return None, f"results[{index}].mean: needs {', '.join(k for k, _, _ in PARTS)}"
    for index, value in enumerate(speedups["speedup"]):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None, f"speedups[{index}]: needs a numeric 'speedup'"
    results.attrs["speedups"] = speedups
    return results, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--out", required=True)
    arguments = parser.parse_args()
    frames = []
    for path in arguments.reports:
        results, problem = load(path)
        if problem:
            print(f"{path}: {problem}", file=sys.stderr)
            return 1
        frames.append(results)
    reports = [results.attrs["document"] for results in frames]
    lines = {}
    for results, report in zip(frames, reports):
        speedups = results.attrs["speedups"]
        for algorithm, speedup in zip(speedups["algorithm"], speedups["speedup"]):
            lines.setdefault(f"{algorithm} ({report['kind']})", []).append((report["nranks"], float(speedup)))
    plt = ringlab_plot.setup_matplotlib()[0]
    os.makedirs(arguments.out, exist_ok=True)
    written = []
    workload = reports[-1]["config"]["workload"]
    try:
        figure, axes = ringlab_plot.new_figure(plt, f"{workload}: speed-up of hybrid over dp",
                                               "dp iteration time / hybrid iteration time; > 1: hybrid faster")
        for key, points in sorted(lines.items()):
            points.sort()
            axes.plot([n for n, _ in points], [s for _, s in points], marker="o", markersize=3, label=key)
        axes.axhline(1.0, color="black", linewidth=0.8)
        axes.set_xscale("log", base=2)
        axes.set_xlabel("ranks (N)")
        axes.set_ylabel("speed-up")
        ringlab_plot.finish(axes)
        ringlab_plot.save(plt, figure, arguments.out, "speedup_vs_ranks", written)

        last = reports[-1]
        shown = frames[-1][frames[-1]["available"] == True]  # noqa: E712  (a column of booleans)
        figure, axes = ringlab_plot.new_figure(plt, f"{workload}: time per iteration, N={last['nranks']}",
                                               f"{last['kind']}: {last.get('command', '')}"[:110])
        bottoms = [0.0] * len(shown)
        for key, name, colour in PARTS:
            values = list(shown[f"mean_{key}"].astype(float))
            axes.bar(range(len(shown)), values, bottom=bottoms, color=colour, label=name)
            bottoms = [b + v for b, v in zip(bottoms, values)]
        axes.set_xticks(range(len(shown)))
        axes.set_xticklabels([f"{mode} {algorithm}" for mode, algorithm in zip(shown["mode"], shown["algorithm"])],
                             rotation=20, ha="right", fontsize=8)
        axes.set_ylabel("seconds per iteration")
        ringlab_plot.finish(axes)
        ringlab_plot.save(plt, figure, arguments.out, "iteration_breakdown", written)
    except OSError as error:
        print(f"replay_plot.py: cannot write into {arguments.out}: {error}", file=sys.stderr)
        return 1
    ringlab_plot.list_written(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
