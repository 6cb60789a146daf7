#!/usr/bin/env python3
"""Plot a ringlab.compare/1 document (the JSON that `ringlab compare --json` writes).

Usage: plotting/compare_plot.py COMPARE.json --out DIR [--model NAME] [--placement out-of-place|in-place]

Writes DIR/predicted_vs_measured.png and .svg: two rows of panels per rank count N in the
document, one column per placement (out-of-place left, in-place beside it: both that the document
has, or the one --placement names). Upper row: time per call against message size (log-log),
measured as markers, predicted by the model (default: the document's first) as lines of the same
colour. Lower row: relative error (predicted - measured) / measured against size, with the +-15 %
band of issue 4's goal and a dotted line at --min-bytes of the document. Size axes are labelled in
B, KiB, MiB. The document is read through ringlab_reports. Files are written to a temporary name
and renamed.
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


PLACEMENTS = ("out-of-place", "in-place")


def timing_panel(ax, rows, model):
    """Measured markers and predicted lines per algorithm (one N, one placement)."""
    for algorithm in sorted(set(rows["algorithm"])):
        chosen = rows[rows["algorithm"] == algorithm].sort_values("size_bytes")
        colour, marker = STYLE.get(algorithm, ("black", "x"))
        ax.plot(chosen["size_bytes"], chosen["measured_us"], marker=marker, linestyle="none", color=colour,
                label=f"{algorithm} measured")
        ax.plot(chosen["size_bytes"], chosen[f"predicted_us_{model}"], color=colour, label=f"{algorithm} predicted")
    ax.set_yscale("log")
    ax.set_ylabel("time per call (us)")
    ax.legend(fontsize=6, ncol=2)


def error_panel(ax, rows, model):
    """Relative error per algorithm against size, with the +-15 % band (one N, one placement)."""
    for algorithm in sorted(set(rows["algorithm"])):
        chosen = rows[rows["algorithm"] == algorithm].sort_values("size_bytes")
        colour, marker = STYLE.get(algorithm, ("black", "x"))
        ax.plot(chosen["size_bytes"], 100 * chosen[f"relative_error_{model}"], marker=marker, color=colour,
                label=algorithm)
    ax.axhspan(-15, 15, color="tab:green", alpha=0.1)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("(predicted - measured) / measured (%)")
    ax.legend(fontsize=6)


def figure(plt, mpl, frame, model, placements=PLACEMENTS):
    """The figure of a document's rows (ringlab_reports.load(path, kind="compare")): per N a row of
    time panels and a row of error panels, one column per placement of `placements` (a name or
    names) that the document has; None when it has rows of none of them."""
    document = frame.attrs["document"]
    wanted = (placements,) if isinstance(placements, str) else tuple(placements)
    rows = frame[frame["placement"].isin(wanted) & (frame["size_bytes"] > 0)]
    columns = [placement for placement in PLACEMENTS if placement in set(rows["placement"])]
    ranks = sorted(set(rows["nranks"]))
    if not ranks:
        return None
    fig, axes = plt.subplots(2 * len(ranks), len(columns), figsize=(6.5 * len(columns), 4.2 * 2 * len(ranks)),
                             squeeze=False, sharey="row")
    fig.suptitle(f"Predicted ({model}) vs measured, {' and '.join(columns)}\n"
                 f"topology {document.get('topology', '?')}", fontsize=10)
    for line, nranks in enumerate(ranks):
        for column, placement in enumerate(columns):
            timing, error = axes[2 * line][column], axes[2 * line + 1][column]
            chosen = rows[(rows["nranks"] == nranks) & (rows["placement"] == placement)]
            if not len(chosen):
                for ax in (timing, error):
                    ax.text(0.5, 0.5, f"no {placement} rows at N = {nranks}", transform=ax.transAxes,
                            ha="center", va="center")
                continue
            timing_panel(timing, chosen, model)
            error_panel(error, chosen, model)
            for ax in (timing, error):
                size_axis(ax, list(chosen["size_bytes"]), mpl)
                ax.axvline(document.get("min_bytes", 0) or 1, color="gray", linestyle=":", linewidth=1)
                ax.grid(True, which="both", alpha=0.3)
            timing.set_title(f"N = {nranks}, {placement}", fontsize=9)
            error.set_title(f"N = {nranks}, {placement}: relative error (band: +-15 %)", fontsize=9)
    fig.tight_layout()
    return fig


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compare")
    parser.add_argument("--out", required=True)
    parser.add_argument("--model")
    parser.add_argument("--placement", choices=PLACEMENTS,
                        help="plot only these rows (default: out-of-place and in-place side by side, each that "
                             "the document has)")
    arguments = parser.parse_args()
    frame = load(arguments.compare)
    document = frame.attrs["document"]
    model = arguments.model or document["models"][0]
    if model not in document["models"]:
        parser.error(f"model {model!r} is not in the document; it has {', '.join(document['models'])}")
    os.makedirs(arguments.out, exist_ok=True)
    mpl = setup_matplotlib()
    plt = mpl[0]

    fig = figure(plt, mpl, frame, model, arguments.placement or PLACEMENTS)
    if fig is None:
        sys.exit(f"compare_plot: {arguments.compare}: no {arguments.placement or 'out-of-place or in-place'} "
                 "rows to plot")
    written = []
    save(plt, fig, arguments.out, "predicted_vs_measured", written)
    list_written(written)


if __name__ == "__main__":
    main()
