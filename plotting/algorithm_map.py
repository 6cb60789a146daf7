#!/usr/bin/env python3
"""Where each algorithm wins, per topology: reads the predicted reports scripts/algorithm-map.sh
wrote (OUT/<family>/n<N>.<model>.json, `ringlab simulate --link-stats`) and draws, per family and
model, the winner heat map over (N, size) and each algorithm's time as a multiple of the lower
bound (docs/algorithm-map.md).

Usage: plotting/algorithm_map.py OUT --out DIR [--tie 0.03]

Writes into DIR: map.csv (one row per family, model, N, algorithm and size: time, busbw, link
bytes, busiest link, bound), winners_<family>_<model>.png/.svg, bound_<family>_<model>.png/.svg,
and prints a Markdown summary: wins per algorithm, interval_paired's wins, ties (within --tie of
the fastest) and losses, Swing's speed-up over the best of ring, recursive_doubling and
halving_doubling on the tori, and Bine's busiest-link and total link bytes against the others on
the dragonfly and the fat-tree. Exit status: 0 when everything was written, 1 when a report was
refused or none was found, 2 on a usage error.
"""

import argparse
import glob
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_plot  # noqa: E402  (next to this file: styles and atomic saving)
import ringlab_reports  # noqa: E402
import validate_report  # noqa: E402

import pandas  # noqa: E402

FIELDS = ("total_link_bytes", "busiest_link_bytes", "lower_bound_us")
SWING_RIVALS = ("ring", "recursive_doubling", "halving_doubling")


def load(out):
    """One DataFrame of the out-of-place rows of every report under OUT/*/, or None (reported)."""
    frames = []
    paths = sorted(glob.glob(os.path.join(out, "*", "n*.json")))
    if not paths:
        print(f"algorithm_map.py: no reports OUT/<family>/n<N>.<model>.json under {out}", file=sys.stderr)
        return None
    for path in paths:
        report, problems = validate_report.validate_file(path)
        if problems:
            validate_report.print_problems(path, problems)
            return None
        frame = ringlab_reports.from_document(report, path, kind="simulate")
        missing = [field for field in FIELDS if field not in frame.columns]
        if missing:
            print(f"{path}: rows lack {', '.join(missing)}; write it with ringlab simulate --link-stats", file=sys.stderr)
            return None
        frame = frame[frame["placement"] == "out-of-place"].copy()
        frame["family"] = os.path.basename(os.path.dirname(path))
        frame["model"] = report["config"]["model"]["name"]
        frame["topology"] = report["config"]["model"]["topology"]
        frame["nranks"] = report["config"]["nranks"]
        frames.append(frame[["family", "model", "topology", "nranks", "algorithm", "size_bytes", "time_us_avg",
                             "busbw_gbps", *FIELDS]])
    table = pandas.concat(frames, ignore_index=True).rename(columns={"time_us_avg": "time_us"})
    table["bound_multiple"] = table["time_us"] / table["lower_bound_us"]
    best = table.groupby(["family", "model", "nranks", "size_bytes"])["time_us"].transform("min")
    table["over_best"] = table["time_us"] / best
    return table


EXACT = 1e-9  # relative: closer to the fastest than this is a shared win (bine and swing price alike)


def winners(table):
    """Per (family, model, N, size): the fastest algorithm; on a shared win the first in STYLE's
    order (the heat map's legend order)."""
    order = {name: i for i, name in enumerate(ringlab_plot.STYLE)}
    fastest = table[table["over_best"] <= 1 + EXACT].copy()
    fastest["order"] = fastest["algorithm"].map(lambda name: order.get(name, len(order)))
    return fastest.sort_values("order").groupby(["family", "model", "nranks", "size_bytes"], as_index=False).first()


def winner_figure(plt, mpl, cells, family, model, written, out_dir):
    from matplotlib.colors import ListedColormap
    sizes = sorted(cells["size_bytes"].unique())
    ranks = sorted(cells["nranks"].unique())
    algorithms = [name for name in ringlab_plot.STYLE if name in set(cells["algorithm"])]
    index = {name: i for i, name in enumerate(algorithms)}
    grid = [[math.nan] * len(sizes) for _ in ranks]
    for row in cells.itertuples():
        grid[ranks.index(row.nranks)][sizes.index(row.size_bytes)] = index[row.algorithm]
    fig, ax = plt.subplots(figsize=(10, 0.4 * len(ranks) + 2.5), dpi=120)
    colours = ListedColormap([ringlab_plot.STYLE[name][0] for name in algorithms])
    ax.imshow(grid, aspect="auto", origin="lower", cmap=colours, vmin=-0.5, vmax=len(algorithms) - 0.5,
              interpolation="nearest")
    ax.set_xticks(range(len(sizes)), [ringlab_plot.byte_label(int(size)) for size in sizes], rotation=60, fontsize=7)
    ax.set_yticks(range(len(ranks)), [str(n) for n in ranks], fontsize=8)
    ax.set_xlabel("message size")
    ax.set_ylabel("N (ranks)")
    topologies = ", ".join(sorted(set(cells["topology"]), key=len)[:2])
    ax.set_title(f"fastest algorithm, {family}, {model} model (predicted; a shared win: the first in the legend)\n"
                 f"{topologies} ...", fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=ringlab_plot.STYLE[name][0]) for name in algorithms]
    ax.legend(handles, algorithms, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    ringlab_plot.save(plt, fig, out_dir, f"winners_{family}_{model}", written)


def bound_figure(plt, mpl, rows, family, model, written, out_dir):
    ranks = sorted(rows["nranks"].unique())
    shown = sorted({ranks[0], ranks[len(ranks) // 2], ranks[-1]})
    fig, axes = plt.subplots(1, len(shown), figsize=(5 * len(shown), 4.5), dpi=120, sharey=True, squeeze=False)
    for ax, nranks in zip(axes[0], shown):
        part = rows[rows["nranks"] == nranks]
        for algorithm in [name for name in ringlab_plot.STYLE if name in set(part["algorithm"])]:
            line = part[part["algorithm"] == algorithm].sort_values("size_bytes")
            colour, marker = ringlab_plot.STYLE[algorithm]
            ax.plot(line["size_bytes"], line["bound_multiple"], color=colour, marker=marker, markersize=3,
                    linewidth=1, label=algorithm)
        ringlab_plot.size_axis(ax, list(part["size_bytes"]), mpl)
        ringlab_plot.log_axis(ax, list(rows["bound_multiple"]), mpl)
        ax.set_title(f"N = {nranks}", fontsize=9)
        ax.grid(True, which="major", alpha=0.35)
    axes[0][0].set_ylabel("predicted time / lower bound")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(f"time as a multiple of the lower bound, {family}, {model} model", fontsize=10)
    fig.tight_layout()
    ringlab_plot.save(plt, fig, out_dir, f"bound_{family}_{model}", written)


def summary(table, cells, tie):
    lines = ["# Algorithm map summary", "",
             f"Ties: within {tie:.0%} of the fastest. Times are predictions (`ringlab simulate`).", "",
             "Wins count every algorithm within 1e-9 of the fastest (a shared win counts for each).", "",
             "| family | model | cells | wins per algorithm | interval_paired wins / ties / losses | "
             "interval_paired worst / fastest |", "|---|---|---|---|---|---|"]
    for (family, model), part in cells.groupby(["family", "model"]):
        mine = table[(table["family"] == family) & (table["model"] == model)]
        counts = mine[mine["over_best"] <= 1 + EXACT]["algorithm"].value_counts()
        wins = ", ".join(f"{name} {count}" for name, count in counts.items())
        ip = mine[mine["algorithm"] == "interval_paired"]
        won = int((ip["over_best"] <= 1 + EXACT).sum())
        tied = int(((ip["over_best"] > 1 + EXACT) & (ip["over_best"] <= 1 + tie)).sum())
        lost = int((ip["over_best"] > 1 + tie).sum())
        worst = ip.loc[ip["over_best"].idxmax()] if len(ip) else None
        worst_text = (f"{worst['over_best']:.2f}x at N = {worst['nranks']}, {ringlab_plot.byte_label(int(worst['size_bytes']))}"
                      if worst is not None else "-")
        lines.append(f"| {family} | {model} | {len(part)} | {wins} | {won} / {tied} / {lost} | {worst_text} |")
    lines += ["", "## Swing against the best of ring, recursive_doubling, halving_doubling (tori)", "",
              "| family | model | largest speed-up | at | median speed-up over 8 KiB .. 8 MiB |", "|---|---|---|---|---|"]
    for (family, model), part in table[table["family"].str.startswith("torus")].groupby(["family", "model"]):
        pivot = part.pivot_table(index=["nranks", "size_bytes"], columns="algorithm", values="time_us")
        if "swing" not in pivot or not all(name in pivot for name in SWING_RIVALS):
            continue
        speedup = pivot[list(SWING_RIVALS)].min(axis=1) / pivot["swing"]
        at = speedup.idxmax()
        middle = speedup[[8 << 10 <= size <= 8 << 20 for _, size in speedup.index]]
        lines.append(f"| {family} | {model} | {speedup.max():.2f}x | N = {at[0]}, {ringlab_plot.byte_label(int(at[1]))} | "
                     f"{middle.median():.2f}x |")
    lines += ["", "## Bine's link traffic (dragonfly, fat-tree; closed-form rows, the counts do not depend on the model)", "",
              "Bytes on the busiest directed link and on all links, bine / halving_doubling (the butterfly it "
              "reorders) and bine / the least of every other algorithm, at the largest size of each N "
              "(< 1: bine puts fewer bytes there).", "",
              "| family | N | busiest: / halving_doubling | busiest: / least other (which) | total: / halving_doubling "
              "| total: / least other (which) |", "|---|---|---|---|---|---|"]
    chosen = table[table["family"].isin(["dragonfly", "fat-tree"]) & (table["model"] == "closed-form")]
    for (family, nranks), at_n in chosen.groupby(["family", "nranks"]):
        largest = at_n[at_n["size_bytes"] == at_n["size_bytes"].max()].set_index("algorithm")
        if "bine" not in largest.index or "halving_doubling" not in largest.index:
            continue
        others = largest.drop(index="bine")
        cells_text = []
        for field in ("busiest_link_bytes", "total_link_bytes"):
            least = others[field].idxmin()
            cells_text.append(f"{largest.loc['bine', field] / largest.loc['halving_doubling', field]:.2f}")
            cells_text.append(f"{largest.loc['bine', field] / others.loc[least, field]:.2f} ({least})")
        lines.append(f"| {family} | {nranks} | " + " | ".join(cells_text) + " |")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the directory scripts/algorithm-map.sh wrote")
    parser.add_argument("--out", dest="plots", required=True, help="directory for map.csv and the figures")
    parser.add_argument("--tie", type=float, default=0.03, help="a tie: within this fraction of the fastest")
    arguments = parser.parse_args(argv)
    table = load(arguments.out)
    if table is None:
        return 1
    os.makedirs(arguments.plots, exist_ok=True)
    table.sort_values(["family", "model", "nranks", "algorithm", "size_bytes"]).to_csv(
        os.path.join(arguments.plots, "map.csv"), index=False, float_format="%.6g")
    cells = winners(table)
    mpl = ringlab_plot.setup_matplotlib()
    plt = mpl[0]
    written = [os.path.join(arguments.plots, "map.csv")]
    for (family, model), part in table.groupby(["family", "model"]):
        winner_figure(plt, mpl, cells[(cells["family"] == family) & (cells["model"] == model)], family, model, written,
                      arguments.plots)
        bound_figure(plt, mpl, part, family, model, written, arguments.plots)
    print(summary(table, cells, arguments.tie))
    ringlab_plot.list_written(written)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
