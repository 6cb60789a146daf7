#!/usr/bin/env python3
"""Plot a ringlab.compare/1 document (the JSON that `ringlab compare --json` writes).

Usage: plotting/compare_plot.py COMPARE.json --out DIR [--model NAME] [--placement out-of-place|in-place]

Writes DIR/predicted_vs_measured.png and .svg: one row of two panels per rank count N in the
document. Left: time per call against message size (log-log), measured as markers, predicted by
the model (default: the document's first) as lines of the same colour. Right: relative error
(predicted - measured) / measured against size, with the +-15 % band of issue 4's goal and a
dotted line at --min-bytes of the document. Size axes are labelled in B, KiB, MiB. The document is
read through ringlab_reports. Files are written to a temporary name and renamed.
Exit status: 0 when written, 1 on a document that is not ringlab.compare/1, 2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)
from ringlab_plot import STYLE, list_written, save, setup_matplotlib, size_axis  # noqa: E402  (same colours)


def load(path):
    """The document's rows as a DataFrame (ringlab_reports), or exit 1 naming the problem."""
    try:
        return ringlab_reports.load(path, kind="compare")
    except ringlab_reports.ReportError as error:
        print(f"compare_plot: {error}", file=sys.stderr)
        sys.exit(1)


def figure(plt, mpl, frame, model, placement):
    """The figure of a document's rows (ringlab_reports.load(path, kind="compare")), or None when it
    has no rows of the placement."""
    document = frame.attrs["document"]
    rows = frame[(frame["placement"] == placement) & (frame["size_bytes"] > 0)]
    ranks = sorted(set(rows["nranks"]))
    if not ranks:
        return None
    fig, axes = plt.subplots(len(ranks), 2, figsize=(12, 4.2 * len(ranks)), squeeze=False)
    fig.suptitle(f"Predicted ({model}) vs measured, {placement}\n"
                 f"topology {document.get('topology', '?')}", fontsize=10)
    for line, nranks in enumerate(ranks):
        timing, error = axes[line]
        of_ranks = rows[rows["nranks"] == nranks]
        for algorithm in sorted(set(of_ranks["algorithm"])):
            chosen = of_ranks[of_ranks["algorithm"] == algorithm].sort_values("size_bytes")
            colour, marker = STYLE.get(algorithm, ("black", "x"))
            sizes = chosen["size_bytes"]
            timing.plot(sizes, chosen["measured_us"], marker=marker, linestyle="none",
                        color=colour, label=f"{algorithm} measured")
            timing.plot(sizes, chosen[f"predicted_us_{model}"], color=colour, label=f"{algorithm} predicted")
            error.plot(sizes, 100 * chosen[f"relative_error_{model}"], marker=marker, color=colour, label=algorithm)
        for ax in (timing, error):
            size_axis(ax, list(of_ranks["size_bytes"]), mpl)
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
    return fig


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compare")
    parser.add_argument("--out", required=True)
    parser.add_argument("--model")
    parser.add_argument("--placement", default="out-of-place", choices=("out-of-place", "in-place"))
    arguments = parser.parse_args()
    frame = load(arguments.compare)
    document = frame.attrs["document"]
    model = arguments.model or document["models"][0]
    if model not in document["models"]:
        parser.error(f"model {model!r} is not in the document; it has {', '.join(document['models'])}")
    os.makedirs(arguments.out, exist_ok=True)
    mpl = setup_matplotlib()
    plt = mpl[0]

    fig = figure(plt, mpl, frame, model, arguments.placement)
    if fig is None:
        sys.exit(f"compare_plot: {arguments.compare}: no {arguments.placement} rows to plot")
    written = []
    save(plt, fig, arguments.out, "predicted_vs_measured", written)
    list_written(written)


if __name__ == "__main__":
    main()
