#!/usr/bin/python3
"""Markdown tables for results/README.md from ringlab.bench/1 reports of the default sweep.

Usage: plotting/goal_tables.py mpi-n2.json mpi-n4.json mpi-n8.json

Prints, from the reports alone (nothing is typed in by hand):
  - busbw at 1 KiB, 1 MiB and 64 MiB per algorithm and N (out-of-place);
  - each algorithm's best busbw as a fraction of the copy bound memcpy * min(1, cores / N);
  - ring and interval_paired busbw over the baseline's at 16 and 64 MiB, N = 2 and 4 (goal >= 2);
  - interval_paired against ring latency at N = 8, 8 B .. 4 KiB (goal: lower at every size).
"""
import json
import sys


def load(paths):
    reports = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            report = json.load(handle)
        reports[report["config"]["nranks"]] = report
    return dict(sorted(reports.items()))


def row(report, algorithm, size, placement="out-of-place"):
    for result in report["results"]:
        if (result["algorithm"], result["size_bytes"], result["placement"]) == (algorithm, size, placement):
            return result
    return None


def busbw_table(reports):
    sizes = [(1024, "1 KiB"), (1 << 20, "1 MiB"), (64 << 20, "64 MiB")]
    algorithms = next(iter(reports.values()))["config"]["algorithms"]
    header = ["algorithm"] + [f"N={n} {label}" for n in reports for _, label in sizes]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for algorithm in algorithms:
        cells = [algorithm]
        for report in reports.values():
            for size, _ in sizes:
                result = row(report, algorithm, size)
                cells.append(f"{result['busbw_gbps']:.3f}" if result else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bound_table(reports):
    algorithms = next(iter(reports.values()))["config"]["algorithms"]
    lines = ["| algorithm | " + " | ".join(f"N={n}: best busbw / bound" for n in reports) + " |",
             "|---|" + "---|" * len(reports)]
    for algorithm in algorithms:
        cells = [algorithm]
        for n, report in reports.items():
            machine = report["machine"]
            bound = machine["memcpy_gbps"] * min(1.0, machine["cores"] / n)
            best = max(r["busbw_gbps"] for r in report["results"] if r["algorithm"] == algorithm)
            cells.append(f"{best:.2f} / {bound:.2f} = {best / bound:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ratio_table(reports):
    lines = ["| N | size | placement | ring / mpi-native | interval_paired / mpi-native | met (>= 2) |",
             "|---|---|---|---|---|---|"]
    met = total = 0
    for n in (2, 4):
        report = reports.get(n)
        if report is None:
            continue
        baseline = report["config"]["baseline"]
        for size, label in ((16 << 20, "16 MiB"), (64 << 20, "64 MiB")):
            for placement in ("out-of-place", "in-place"):
                base = row(report, baseline, size, placement)
                ratios = [row(report, a, size, placement)["busbw_gbps"] / base["busbw_gbps"]
                          for a in ("ring", "interval_paired")]
                ok = all(r >= 2 for r in ratios)
                met += sum(r >= 2 for r in ratios)
                total += len(ratios)
                lines.append(f"| {n} | {label} | {placement} | {ratios[0]:.2f} | {ratios[1]:.2f} | "
                             f"{'yes' if ok else 'no'} |")
    lines.append("")
    lines.append(f"{met} of {total} ratios reach 2.")
    return "\n".join(lines)


def latency_table(reports):
    report = reports.get(8)
    if report is None:
        return "(no N = 8 report)"
    lines = ["| size (B) | ring | interval_paired | ip < ring |", "|---|---|---|---|"]
    faster = total = 0
    size = 8
    while size <= 4096:
        ring = row(report, "ring", size)["time_us"]["avg"]
        paired = row(report, "interval_paired", size)["time_us"]["avg"]
        faster += paired < ring
        total += 1
        lines.append(f"| {size} | {ring:.1f} | {paired:.1f} | {'yes' if paired < ring else 'no'} |")
        size *= 2
    lines.append("")
    lines.append(f"interval_paired faster at {faster} of {total} sizes.")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    reports = load(sys.argv[1:])
    memcpy = ", ".join(f"N={n}: {r['machine']['memcpy_gbps']:.2f} GB/s" for n, r in reports.items())
    transports = {r["config"].get("transport", "(not recorded)") for r in reports.values()}
    print("busbw (GB/s), out-of-place, at 1 KiB / 1 MiB / 64 MiB:\n")
    print(busbw_table(reports))
    print(f"\nmemcpy (rank 0 alone, same run): {memcpy}")
    print(f"transport: {'; '.join(sorted(transports))}\n")
    print(bound_table(reports) + "\n")
    print("Goal: busbw of ring and interval_paired vs mpi-native (MPI_Allreduce), same run:\n")
    print(ratio_table(reports) + "\n")
    print("Goal: at N = 8, 8 B .. 4 KiB, interval_paired latency < ring latency (out-of-place avg time, us):\n")
    print(latency_table(reports))


if __name__ == "__main__":
    main()
