#!/usr/bin/env python3
"""How close `bench --algo auto` came to the measured best (scripts/tune-check.sh).

Usage: plotting/tune_check.py BENCH.json... --out DIR [--within PERCENT] [--mean PERCENT] [--share PERCENT]

Each measured ringlab.bench/1 report must hold "auto" rows and the schedule algorithms it chose
from, measured in the same run. Per (report, size, placement) the best is the fastest median
(time_us.p50) of the schedule algorithms (not auto, not the native all-reduce); auto, ring and
the native all-reduce (where measured) are each given as their median over that best; "repeat"
is auto's median over its choice's own row (one schedule timed twice: the run's noise). Writes
DIR/tune_check.md: one line per report (ranks, backend, rows, auto's mean ratio, the share of
rows within --within of the best, the same for ring, native and repeat) and the verdict against the goals
(defaults: mean ratio <= 1.05, >= 90 % of rows within 3 %). Exit status: 0 when every goal holds,
3 when written and a goal does not, 1 on a report without auto rows, 2 on a usage error.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_reports  # noqa: E402

NATIVE = ("mpi-native", "nccl-native")


def ratios(path):
    """One row per (size, placement): the best schedule algorithm and auto's, ring's and native's
    medians over its median."""
    import pandas as pd
    frame = ringlab_reports.load(path, kind="bench")
    if "auto" not in set(frame["algorithm"]):
        print(f"tune_check: {path} has no auto rows; run bench with --algo all,auto --tuning FILE", file=sys.stderr)
        sys.exit(1)
    config = frame.attrs["document"]["config"]
    rows = []
    for (size, placement), group in frame.groupby(["size_bytes", "placement"]):
        medians = dict(zip(group["algorithm"], group["time_us_p50"]))
        schedules = {name: t for name, t in medians.items() if name != "auto" and name not in NATIVE}
        best_name = min(schedules, key=schedules.get)
        best = schedules[best_name]
        chosen = group[group["algorithm"] == "auto"]["auto_algorithm"].iloc[0]
        native = next((medians[n] for n in NATIVE if n in medians), None)
        rows.append({"nranks": config["nranks"], "backend": config["backend"], "size_bytes": size,
                     "placement": placement, "best": best_name, "auto_chose": chosen,
                     "auto": medians["auto"] / best, "ring": medians["ring"] / best if "ring" in medians else None,
                     "native": native / best if native is not None else None,
                     # the same schedule timed twice in one sweep (auto's row and its choice's own row):
                     # how far apart two measurements of one thing land, the noise any ratio here carries
                     "repeat": medians["auto"] / medians[chosen] if chosen in medians else None})
    return pd.DataFrame(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--within", type=float, default=3.0, help="a row counts as a hit within this %% of the best")
    parser.add_argument("--mean", type=float, default=5.0, help="goal: auto's mean ratio within this %% of 1")
    parser.add_argument("--share", type=float, default=90.0, help="goal: at least this %% of rows are hits")
    args = parser.parse_args()
    import pandas as pd
    table = pd.concat([ratios(path) for path in args.reports], ignore_index=True)
    os.makedirs(args.out, exist_ok=True)
    hit = 1 + args.within / 100
    lines = ["| ranks | backend | rows | auto: mean ratio | auto: rows within {:g} % | ring: mean | ring: within | "
             "native: mean | native: within | repeat: mean | repeat: within |".format(args.within),
             "|---|---|---|---|---|---|---|---|---|---|---|"]

    def summary(series):
        series = series.dropna()
        if series.empty:
            return "-", "-"
        return f"{series.mean():.3f}", f"{100 * (series <= hit).mean():.0f} %"

    for (nranks, backend), group in table.groupby(["nranks", "backend"]):
        cells = [summary(group[column]) for column in ("auto", "ring", "native")]
        repeat = group["repeat"].dropna()  # a ratio either way: |log| says how far apart
        cells.append(("-", "-") if repeat.empty else
                     (f"{repeat.mean():.3f}", f"{100 * ((repeat <= hit) & (repeat >= 1 / hit)).mean():.0f} %"))
        lines.append(f"| {nranks} | {backend} | {len(group)} | " + " | ".join(f"{m} | {w}" for m, w in cells) + " |")
    mean_ratio = table["auto"].mean()
    share = 100 * (table["auto"] <= hit).mean()
    goals_met = mean_ratio <= 1 + args.mean / 100 and share >= args.share
    lines += ["", f"All rows: auto's mean ratio to the best {mean_ratio:.3f} (goal <= {1 + args.mean / 100:.2f}); "
              f"{share:.0f} % of rows within {args.within:g} % of the best (goal >= {args.share:g} %): "
              f"{'met' if goals_met else 'NOT met'}. repeat: auto's median over the median of the row of the "
              "algorithm it ran, the same schedule timed twice in the sweep (within: both ways).", "",
              "Worst auto rows (ratio to the measured best):", "",
              "| ranks | backend | size (B) | placement | best | auto chose | auto / best |", "|---|---|---|---|---|---|---|"]
    for _, row in table.sort_values("auto", ascending=False).head(10).iterrows():
        lines.append(f"| {row.nranks} | {row.backend} | {row.size_bytes} | {row.placement} | {row.best} | "
                     f"{row.auto_chose} | {row.auto:.3f} |")
    path = os.path.join(args.out, "tune_check.md")
    with open(path, "w", encoding="utf-8") as stream:
        stream.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"tune_check: wrote {path}")
    return 0 if goals_met else 3


if __name__ == "__main__":
    sys.exit(main())
