#!/usr/bin/env python3
"""Summarise ringlab.compare/1 documents of sweeps of different (type, op) pairs priced on one
calibration (scripts/type-op-accuracy.sh).

Usage: plotting/type_op_accuracy.py COMPARE.json... --out DIR [--goal PERCENT]

Writes DIR/summary.md: per (type, op, N, algorithm, model) the document's own summary (rows at
sizes >= its min_bytes, median and p90 |relative error|, as `ringlab compare` prints them), with a
verdict against the goal (default 15 %), and DIR/type_op_accuracy.png/.svg: the flow-level median |error| per algorithm, one group
of bars per (type, op). The type and op are the documents' rows' (the op column; a document
without one is named by its type alone); one pair per document. Exit status: 0 when written and every flow-level median
meets the goal, 3 when written and some does not, 1 on a document that is not ringlab.compare/1,
2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)
from ringlab_plot import STYLE, list_written, save, setup_matplotlib  # noqa: E402


def error_table(paths):
    """One row per (pair, algorithm, model, N) from each document's own summary (the figures
    `ringlab compare` prints), named by the (type, op) of the document's rows."""
    import pandas as pd
    summaries = []
    for path in paths:
        try:
            frame = ringlab_reports.load(path, kind="compare")
        except ringlab_reports.ReportError as error:
            print(f"type_op_accuracy: {error}", file=sys.stderr)
            sys.exit(1)
        ops = set(frame["op"]) if "op" in frame else {""}
        pairs = {f"{type_name}/{op}" if op else type_name for type_name in set(frame["type"]) for op in ops}
        if len(pairs) != 1:
            print(f"type_op_accuracy: {path} has rows of {len(pairs)} (type, op) pairs ({', '.join(sorted(pairs))}); "
                  "give one compare document per pair", file=sys.stderr)
            sys.exit(1)
        for entry in frame.attrs["document"].get("summary", []):
            summaries.append({"pair": next(iter(pairs)), "algorithm": entry["algorithm"],
                              "model": entry["model"], "nranks": entry["nranks"], "rows": entry["rows"],
                              "median_pct": 100 * entry["median_abs_error"], "p90_pct": 100 * entry["p90_abs_error"]})
    return pd.DataFrame(summaries)


def markdown(table, goal):
    lines = [f"| pair | N | algorithm | model | rows | median abs error | p90 | median <= {goal:g} % |",
             "|---|---|---|---|---|---|---|---|"]
    for row in table.itertuples():
        verdict = "yes" if row.median_pct <= goal else "**no**"
        lines.append(f"| {row.pair} | {row.nranks} | {row.algorithm} | {row.model} | {row.rows} | {row.median_pct:.1f} % | "
                     f"{row.p90_pct:.1f} % | {verdict} |")
    return "\n".join(lines) + "\n"


def plot(table, out, goal):
    plt = setup_matplotlib()[0]
    flow = table[table["model"] == "flow-level"]
    pairs = list(dict.fromkeys(flow["pair"]))
    algorithms = sorted(set(flow["algorithm"]))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(pairs)), 4.2))
    width = 0.8 / max(1, len(algorithms))
    for index, algorithm in enumerate(algorithms):
        heights = [flow[(flow["pair"] == pair) & (flow["algorithm"] == algorithm)]["median_pct"].max() for pair in pairs]
        colour, _ = STYLE.get(algorithm, ("black", "x"))
        ax.bar([p + index * width for p in range(len(pairs))], heights, width, color=colour, label=algorithm)
    ax.axhline(goal, color="gray", linestyle="--", linewidth=1, label=f"goal {goal:g} %")
    ax.set_xticks([p + 0.4 - width / 2 for p in range(len(pairs))])
    ax.set_xticklabels(pairs)
    ax.set_ylabel("flow-level median |error| (%)")
    ax.set_title("Model error per (type, op), one calibration", fontsize=10)
    ax.legend(fontsize=7)
    written = []
    save(plt, fig, out, "type_op_accuracy", written)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("documents", nargs="+", help="ringlab.compare/1 documents")
    parser.add_argument("--out", required=True, help="folder for summary.md and the plot")
    parser.add_argument("--goal", type=float, default=15.0, help="the median |error| goal in percent")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    table = error_table(arguments.documents)
    text = markdown(table, arguments.goal)
    summary = os.path.join(arguments.out, "summary.md")
    with open(summary + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(summary + ".tmp", summary)
    print(text, end="")
    list_written(plot(table, arguments.out, arguments.goal) + [summary])
    flow = table[table["model"] == "flow-level"]
    return 0 if (flow["median_pct"] <= arguments.goal).all() else 3


if __name__ == "__main__":
    sys.exit(main())
