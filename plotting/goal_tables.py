#!/usr/bin/env python3
"""speedup-vs-mpi.md of the main job: ring and interval_paired against MPI_Allreduce, from
ringlab.bench/1 reports alone (nothing typed in by hand).

Usage: plotting/goal_tables.py REPORT.json... > speedup-vs-mpi.md

Each report is sorted by its placement (config.oversubscribed and config.bound, written by
ringlab bench from every rank's CPUs and host):
  - performance: every rank bound to its own core(s), no host with more ranks than usable cores.
    Only these give the speed-up table and the busbw table.
  - oversubscribed: more ranks than usable cores on a host. Correctness and latency ordering
    only: they give the latency-order table, labelled as such, and never a ratio.
  - the rest (ranks not bound, or a report made before the placement was recorded): listed, unused.
With no performance report it refuses (exit 1) and says how to make one.

Speed-up = MPI_Allreduce's median time / the algorithm's median time (time_us.p50), per size
1 MiB .. 64 MiB, out-of-place and in-place. Its 95 % interval comes from the two medians'
intervals (time_us.p50_ci95_low/high): low = baseline_low / alg_high, high = baseline_high /
alg_low. That holds every ratio both intervals allow, so it is conservative: wider than a joint
95 % interval needs to be; it holds the true ratio whenever both medians' intervals hold theirs.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # ringlab_reports, when not installed
import ringlab_reports  # noqa: E402

BASELINE = "mpi-native"
ALGORITHMS = ("ring", "interval_paired")
PLACEMENTS = ("out-of-place", "in-place")
RATIO_SIZES = (1 << 20, 64 << 20)  # smallest and largest size of the speed-up table
LATENCY_SIZES = (8, 4096)
CI_LOW, CI_HIGH = "time_us_p50_ci95_low", "time_us_p50_ci95_high"


class Refusal(Exception):
    """A reason to print and exit 1 with."""


def load_bench(path):
    """One measured bench report as ringlab_reports.load gives it, or a Refusal naming the problem."""
    try:
        return ringlab_reports.load(path, kind="bench")
    except ringlab_reports.ReportError as error:
        raise Refusal(str(error)) from error


def size_label(size):
    return ringlab_reports.byte_label(size)


def placement_class(frame):
    """("performance" | "oversubscribed" | "unused", words for the report's list)."""
    config = frame.attrs["document"]["config"]
    nranks = config.get("nranks")
    if "oversubscribed" not in config or "bound" not in config:
        return "unused", f"N = {nranks}, placement not recorded (a report older than the oversubscription check)"
    if config["oversubscribed"]:
        return "oversubscribed", (f"N = {nranks}, **oversubscribed**: {config.get('ranks_per_host')} ranks on "
                                  f"{config.get('usable_cores')} usable cores: correctness and latency ordering only")
    if not config["bound"]:
        return "unused", f"N = {nranks}, ranks not bound to their own cores (bind them: mpiexec -bind-to core)"
    return "performance", f"N = {nranks}, bound, a core per rank: performance figures"


def median_row(frame, algorithm, size, placement):
    rows = frame[(frame["algorithm"] == algorithm) & (frame["size_bytes"] == size) & (frame["placement"] == placement)]
    return None if rows.empty else rows.iloc[0]


def speedup(baseline, algorithm):
    """(ratio, low, high) of baseline time / algorithm time, from medians and their intervals."""
    ratio = baseline["time_us_p50"] / algorithm["time_us_p50"]
    return ratio, baseline[CI_LOW] / algorithm[CI_HIGH], baseline[CI_HIGH] / algorithm[CI_LOW]


def check_has_intervals(frame):
    path = frame.attrs["path"]
    if CI_LOW not in frame.columns or CI_HIGH not in frame.columns or frame[[CI_LOW, CI_HIGH]].isna().any().any():
        raise Refusal(f"{path}: rows without time_us.p50_ci95_low/high (the median's 95 % interval): the report was "
                      "made before ringlab bench gave it; measure again (bash scripts/main.sh)")
    if BASELINE not in set(frame["algorithm"]):
        raise Refusal(f"{path}: no {BASELINE} rows: the speed-up needs MPI_Allreduce in the same run "
                      f"(--algo all, or add {BASELINE} to --algo)")


def speedup_table(performance):
    """The table's lines and [(verdict, "alg placement size")] for the sentences after it."""
    lines = ["| N | size | placement | " + " | ".join(f"{a} speed-up [95 % CI]" for a in ALGORITHMS) + " |",
             "|---|---|---|" + "---|" * len(ALGORITHMS)]
    verdicts = []
    for frame in performance:
        check_has_intervals(frame)
        nranks = frame.attrs["document"]["config"]["nranks"]
        sizes = sorted(s for s in set(frame["size_bytes"]) if RATIO_SIZES[0] <= s <= RATIO_SIZES[1])
        for size in sizes:
            for placement in PLACEMENTS:
                base = median_row(frame, BASELINE, size, placement)
                if base is None:
                    continue
                cells = []
                for algorithm in ALGORITHMS:
                    row = median_row(frame, algorithm, size, placement)
                    if row is None:
                        cells.append("-")
                        continue
                    ratio, low, high = speedup(base, row)
                    cells.append(f"{ratio:.2f} [{low:.2f}, {high:.2f}]")
                    where = f"{algorithm} at N = {nranks}, {size_label(size)} {placement}"
                    verdicts.append(("mpi" if high < 1 else "ours" if low > 1 else "open", where))
                lines.append(f"| {nranks} | {size_label(size)} | {placement} | " + " | ".join(cells) + " |")
    return lines, verdicts


def verdict_sentences(verdicts):
    def listed(kind):
        return [where for verdict, where in verdicts if verdict == kind]

    mpi, ours, undecided = listed("mpi"), listed("ours"), listed("open")
    lines = []
    if mpi:
        lines.append(f"MPICH's MPI_Allreduce wins (speed-up interval entirely below 1) for {'; '.join(mpi)}.")
    else:
        lines.append("MPICH's MPI_Allreduce wins nowhere here (no speed-up interval lies entirely below 1).")
    lines.append(f"ringlab's algorithm wins (interval entirely above 1) for {len(ours)} of {len(verdicts)}"
                 + (f": {'; '.join(ours)}." if ours else "."))
    if undecided:
        lines.append(f"Undecided (the interval holds 1) for {'; '.join(undecided)}.")
    return lines


def busbw_table(performance):
    sizes = (1024, 1 << 20, 64 << 20)
    header = ["N", "algorithm"] + [f"{size_label(size)}" for size in sizes]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for frame in performance:
        document = frame.attrs["document"]
        for algorithm in document["config"]["algorithms"]:
            cells = []
            for size in sizes:
                row = median_row(frame, algorithm, size, "out-of-place")
                cells.append("-" if row is None else f"{row['busbw_gbps']:.3f}")
            lines.append(f"| {document['config']['nranks']} | {algorithm} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("memcpy, rank 0 alone, same run: " + ", ".join(
        f"N = {f.attrs['document']['config']['nranks']}: {f.attrs['document']['machine']['memcpy_gbps']:.2f} GB/s"
        for f in performance))
    return lines


def latency_table(frame):
    """interval_paired against ring, median time, 8 B .. 4 KiB out-of-place: ordering only."""
    config = frame.attrs["document"]["config"]
    intervals = CI_LOW in frame.columns and CI_HIGH in frame.columns
    lines = ["| size | ring p50 (us) | interval_paired p50 (us) | order |", "|---|---|---|---|"]
    faster = decided = total = 0
    sizes = sorted(s for s in set(frame["size_bytes"]) if LATENCY_SIZES[0] <= s <= LATENCY_SIZES[1])
    for size in sizes:
        ring = median_row(frame, "ring", size, "out-of-place")
        paired = median_row(frame, "interval_paired", size, "out-of-place")
        if ring is None or paired is None:
            continue
        total += 1
        if intervals and paired[CI_HIGH] < ring[CI_LOW]:
            order = "interval_paired faster"
        elif intervals and paired[CI_LOW] > ring[CI_HIGH]:
            order = "ring faster"
        elif intervals:
            order = "intervals overlap"
        else:
            order = "interval_paired faster" if paired["time_us_p50"] < ring["time_us_p50"] else "ring faster"
            order += " (no interval)"
        decided += order != "intervals overlap"
        faster += order.startswith("interval_paired")
        lines.append(f"| {size_label(size)} | {ring['time_us_p50']:.1f} | {paired['time_us_p50']:.1f} | {order} |")
    lines += ["", f"N = {config['nranks']}: interval_paired faster at {faster} of {total} sizes "
                  f"({total - decided} with overlapping intervals)."]
    return lines


def main(paths):
    if not paths:
        raise Refusal(__doc__.strip())
    frames = [load_bench(path) for path in paths]
    classes = {"performance": [], "oversubscribed": [], "unused": []}
    out = ["# ring and interval_paired against MPI_Allreduce", "",
           "Made by plotting/goal_tables.py from these reports (how each run's ranks were placed decides what it "
           "may show):", ""]
    for frame in frames:
        kind, words = placement_class(frame)
        classes[kind].append(frame)
        out.append(f"- `{frame.attrs['path']}`: {words}")
    performance = sorted(classes["performance"], key=lambda f: f.attrs["document"]["config"]["nranks"])
    if not performance:
        raise Refusal("goal_tables: no report from ranks bound to a core each without oversubscription, so no "
                      "speed-up can be given (" + "; ".join(f"{f.attrs['path']}: {placement_class(f)[1]}"
                                                            for f in frames)
                      + "). Measure one: mpiexec -n 2 -bind-to core build/release/cli/ringlab bench -b 1M -e 64M "
                      "--algo ring,interval_paired,mpi-native --json REPORT (bash scripts/main.sh does)")
    table, verdicts = speedup_table(performance)
    out += ["", "## Speed-up over MPI_Allreduce (median time ratio, > 1: faster than MPICH)", "",
            "Speed-up = MPI_Allreduce's median time / the algorithm's; the interval [baseline_low / alg_high, "
            "baseline_high / alg_low] from the medians' 95 % intervals is conservative (wider than a joint "
            "95 % interval needs to be).", ""]
    out += table + [""] + verdict_sentences(verdicts)
    out += ["", "## busbw (GB/s), out-of-place, performance reports only", ""] + busbw_table(performance)
    ordering = sorted(classes["oversubscribed"] + performance, key=lambda f: f.attrs["document"]["config"]["nranks"])
    largest = ordering[-1]
    oversubscribed = any(frame is largest for frame in classes["oversubscribed"])
    label = " (oversubscribed: correctness and latency ordering only)" if oversubscribed else ""
    out += ["", f"## Latency order at N = {largest.attrs['document']['config']['nranks']}{label}: interval_paired "
                "against ring, 8 B .. 4 KiB, out-of-place median", ""] + latency_table(largest)
    print("\n".join(out))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Refusal as refusal:
        sys.exit(str(refusal))
