#!/usr/bin/env python3
"""Plot ringlab.train/1 reports (the JSON that `ringlab train --json` writes).

Usage: plotting/train_plot.py REPORT... --out DIR

Writes into DIR (PNG and SVG each):
  loss_vs_step     training loss per step, one line per report
  time_breakdown   mean compute, communication and idle seconds per step (the report's summary,
                   over its timed steps), one stacked bar per report
Each report is labelled "<mode> <algorithm> N=<ranks>" (plus its file name when two reports would
share a label). Reports are read through ringlab_reports. A file that is not a ringlab.train/1
report, or lacks a field the plots need, is
refused with a message naming the file and the field; nothing is written then.
Exit status: 0 when everything was written, 1 on a refused report or a write error, 2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_plot  # noqa: E402  (next to this file: styles and atomic saving)
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)

SCHEMA = "ringlab.train/1"
PARTS = (("mean_compute_seconds", "compute", "tab:blue"),
         ("mean_communication_seconds", "communication", "tab:orange"),
         ("mean_idle_seconds", "idle", "tab:gray"))


def load(path):
    """(steps as a DataFrame with the report in attrs["document"], problem): problem is None when
    the report has what the plots need."""
    try:
        steps = ringlab_reports.load(path, kind="train")
    except ringlab_reports.ReportError as error:
        return None, str(error).removeprefix(f"{path}: ")
    report = steps.attrs["document"]
    for key in ("config", "nranks", "summary"):
        if key not in report:
            return None, f"missing field '{key}'"
    if len(steps) and not steps["loss"].map(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)).all():
        return None, "steps: every step needs a numeric 'loss'"
    for key, _, _ in PARTS:
        if not isinstance(report["summary"].get(key), (int, float)):
            return None, f"summary.{key}: missing or not a number"
    for key in ("mode", "algorithm"):
        if key not in report["config"]:
            return None, f"config.{key}: missing"
    return steps, None


def labels_of(paths, reports):
    """reports: the documents."""
    labels = [f"{r['config']['mode']} {r['config']['algorithm']} N={r['nranks']}" for r in reports]
    return [f"{label} ({os.path.basename(path)})" if labels.count(label) > 1 else label
            for label, path in zip(labels, paths)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--out", required=True)
    arguments = parser.parse_args()
    frames = []
    for path in arguments.reports:
        steps, problem = load(path)
        if problem:
            print(f"{path}: {problem}", file=sys.stderr)
            return 1
        frames.append(steps)
    reports = [steps.attrs["document"] for steps in frames]
    labels = labels_of(arguments.reports, reports)
    plt = ringlab_plot.setup_matplotlib()[0]
    os.makedirs(arguments.out, exist_ok=True)
    written = []
    try:
        figure, axes = ringlab_plot.new_figure(plt, "training loss per step", f"{len(reports)} ringlab.train/1 reports")
        for steps, label in zip(frames, labels):
            axes.plot(steps["step"], steps["loss"], marker="o", markersize=3, label=label)
        axes.set_xlabel("step")
        axes.set_ylabel("loss")
        ringlab_plot.finish(axes)
        ringlab_plot.save(plt, figure, arguments.out, "loss_vs_step", written)

        figure, axes = ringlab_plot.new_figure(plt, "time per step: compute, communication, idle",
                                               "means over each report's timed steps (summary)")
        bottoms = [0.0] * len(reports)
        for key, name, colour in PARTS:
            values = [r["summary"][key] for r in reports]
            axes.bar(range(len(reports)), values, bottom=bottoms, color=colour, label=name)
            bottoms = [b + v for b, v in zip(bottoms, values)]
        axes.set_xticks(range(len(reports)))
        axes.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
        axes.set_ylabel("seconds per step")
        ringlab_plot.finish(axes)
        ringlab_plot.save(plt, figure, arguments.out, "time_breakdown", written)
    except OSError as error:
        print(f"train_plot.py: cannot write into {arguments.out}: {error}", file=sys.stderr)
        return 1
    ringlab_plot.list_written(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
