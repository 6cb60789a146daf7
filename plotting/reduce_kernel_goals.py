#!/usr/bin/env python3
"""Issue 29's kernel goals from one Google Benchmark JSON of ringlab_micro (--benchmark_out).

Usage: plotting/reduce_kernel_goals.py MICRO.json [--out FILE.md]

Reads BM_memcpy, BM_reduce_into/TYPE/OP and BM_reduce_into_reference/TYPE/sum (bytes moved per
second; with --benchmark_repetitions the median aggregate, else the single run) and prints a
markdown table per type and op: GB/s, ratio to memcpy (goal >= 0.8), ratio to the same type's sum
(goal: prod/min/max/avg within 10 %), the float16/bfloat16 sum against float32 sum (goal >= 0.9)
and the speed-up over the scalar reference. Every ratio is of rates from the same run. Exit 0
when every goal holds, 3 when one does not, 1 on a file that is not such a benchmark report.
"""

import argparse
import json
import os
import sys


def rates(document):
    """{benchmark family name: bytes per second}: the median aggregate where repetitions ran."""
    found, medians = {}, {}
    for entry in document.get("benchmarks", []):
        name = entry.get("run_name", entry.get("name", "")).split("/min_time")[0]
        if "bytes_per_second" not in entry:
            continue
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                medians[name] = entry["bytes_per_second"]
        else:
            found.setdefault(name, entry["bytes_per_second"])
    found.update(medians)
    return found


def table(measured):
    """(markdown lines, every goal held)."""
    memcpy = measured.get("BM_memcpy")
    if not memcpy:
        raise ValueError("no BM_memcpy result: run ringlab_micro with a filter that includes BM_memcpy")
    kernels = {tuple(name.split("/")[1:3]): rate for name, rate in measured.items()
               if name.startswith("BM_reduce_into/") and name.count("/") == 2}
    if not kernels:
        raise ValueError("no BM_reduce_into/TYPE/OP results")
    lines = ["| type | op | GB/s | vs memcpy (>= 0.8) | vs same type's sum (within 10 %) | vs float32 sum (half types, >= 0.9) | vs scalar reference |",
             "|---|---|---|---|---|---|---|"]
    held = True
    types = ["float32", "float64", "float16", "bfloat16", "int32", "int64"]
    ops = ["sum", "prod", "min", "max", "avg"]
    order = {name: index for index, name in enumerate(types + ops)}
    for (type_name, op), rate in sorted(kernels.items(), key=lambda item: (order.get(item[0][0], 99), order.get(item[0][1], 99))):
        to_memcpy = rate / memcpy
        ok_memcpy = to_memcpy >= 0.8
        sum_rate = kernels.get((type_name, "sum"))
        to_sum = rate / sum_rate if sum_rate else None
        ok_sum = to_sum is None or op == "sum" or abs(to_sum - 1) <= 0.10
        half = type_name in ("float16", "bfloat16") and op == "sum"
        to_float32 = rate / kernels[("float32", "sum")] if half and ("float32", "sum") in kernels else None
        ok_float32 = to_float32 is None or to_float32 >= 0.9
        reference = measured.get(f"BM_reduce_into_reference/{type_name}/sum") if op == "sum" else None
        held = held and ok_memcpy and ok_sum and ok_float32

        def mark(value, ok):
            return "" if value is None else (f"{value:.2f}" if ok else f"**{value:.2f}**")
        lines.append(f"| {type_name} | {op} | {rate / 1e9:.1f} | {mark(to_memcpy, ok_memcpy)} | "
                     f"{'' if op == 'sum' else mark(to_sum, ok_sum)} | {mark(to_float32, ok_float32)} | "
                     f"{'' if not reference else f'{rate / reference:.1f}x'} |")
    lines.append(f"\nmemcpy: {memcpy / 1e9:.1f} GB/s (bytes read + written). Bold: goal missed.")
    return lines, held


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="ringlab_micro --benchmark_out=FILE --benchmark_out_format=json")
    parser.add_argument("--out", help="also write the table here (markdown)")
    arguments = parser.parse_args()
    try:
        with open(arguments.report, encoding="utf-8") as handle:
            document = json.load(handle)
        context = document.get("context", {})
        lines, held = table(rates(document))
    except (OSError, ValueError, AttributeError) as error:
        print(f"reduce_kernel_goals: {arguments.report}: {error}", file=sys.stderr)
        return 1
    header = (f"Kernels on {context.get('reduce_kernel_target', '?')}, {context.get('num_cpus', '?')} CPUs at "
              f"{context.get('mhz_per_cpu', '?')} MHz, {context.get('date', '?')}\n")
    text = header + "\n" + "\n".join(lines) + "\n"
    print(text, end="")
    if arguments.out:
        with open(arguments.out + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(arguments.out + ".tmp", arguments.out)
    return 0 if held else 3


if __name__ == "__main__":
    sys.exit(main())
