#!/usr/bin/python3
"""Plot a ringlab.compare/1 document (the JSON that `ringlab compare --json` writes).

Usage: plotting/compare_plot.py COMPARE.json --out DIR [--model NAME] [--placement out-of-place|in-place]

Writes DIR/predicted_vs_measured.png and .svg: one row of two panels per rank count N in the
document. Left: time per call against message size (log-log), measured as markers, predicted by
the model (default: the document's first) as lines of the same colour. Right: relative error
(predicted - measured) / measured against size, with the +-15 % band of issue 4's goal and a
dotted line at --min-bytes of the document. Files are written to a temporary name and renamed.
Exit status: 0 when written, 1 on a document that is not ringlab.compare/1, 2 on a usage error.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ringlab_plot import STYLE, list_written, save  # noqa: E402  (next to this file: same colours per algorithm)


def load(path):
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except (OSError, json.JSONDecodeError) as error:
        sys.exit(f"compare_plot: {path}: {error}")
    if not isinstance(document, dict) or document.get("schema") != "ringlab.compare/1":
        print(f"compare_plot: {path}: not a ringlab.compare/1 document (write one with ringlab compare --json)",
              file=sys.stderr)
        sys.exit(1)
    return document


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compare")
    parser.add_argument("--out", required=True)
    parser.add_argument("--model")
    parser.add_argument("--placement", default="out-of-place", choices=("out-of-place", "in-place"))
    arguments = parser.parse_args()
    document = load(arguments.compare)
    model = arguments.model or document["models"][0]
    if model not in document["models"]:
        parser.error(f"model {model!r} is not in the document; it has {', '.join(document['models'])}")
    os.makedirs(arguments.out, exist_ok=True)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in document["rows"] if row["placement"] == arguments.placement and row["size_bytes"] > 0]
    ranks = sorted({row["nranks"] for row in rows})
    if not ranks:
        sys.exit(f"compare_plot: {arguments.compare}: no {arguments.placement} rows to plot")
    fig, axes = plt.subplots(len(ranks), 2, figsize=(12, 4.2 * len(ranks)), squeeze=False)
    fig.suptitle(f"Predicted ({model}) vs measured, {arguments.placement}\n"
                 f"topology {document.get('topology', '?')}", fontsize=10)
    for line, nranks in enumerate(ranks):
        timing, error = axes[line]
        for algorithm in sorted({row["algorithm"] for row in rows if row["nranks"] == nranks}):
            chosen = sorted((row for row in rows if row["nranks"] == nranks and row["algorithm"] == algorithm),
                            key=lambda row: row["size_bytes"])
            colour, marker = STYLE.get(algorithm, ("black", "x"))
            sizes = [row["size_bytes"] for row in chosen]
            timing.plot(sizes, [row["measured_us"] for row in chosen], marker=marker, linestyle="none",
                        color=colour, label=f"{algorithm} measured")
            timing.plot(sizes, [row["predicted_us"][model] for row in chosen], color=colour,
                        label=f"{algorithm} predicted")
            error.plot(sizes, [100 * row["relative_error"][model] for row in chosen], marker=marker, color=colour,
                       label=algorithm)
        for ax in (timing, error):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("message size (B)")
            ax.axvline(document.get("min_bytes", 0) or 1, color="gray", linestyle=":", linewidth=1)
            ax.grid(True, which="both", alpha=0.3)
        timing.set_yscale("log")
        timing.set_ylabel("time per call (us)")
        timing.set_title(f"N = {nranks}", fontsize=9)
        timing.legend(fontsize=6, ncol=2)
        error.axhspan(-15, 15, color="tab:green", alpha=0.1)
        error.axhline(0, color="black", linewidth=0.8)
        error.set_ylabel("(predicted - measured) / measured (%)")
        error.set_title(f"N = {nranks}: relative error (band: +-15 %)", fontsize=9)
        error.legend(fontsize=6)
    fig.tight_layout()
    written = []
    save(plt, fig, arguments.out, "predicted_vs_measured", written)
    list_written(written)


if __name__ == "__main__":
    main()
