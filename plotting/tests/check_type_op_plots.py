#!/usr/bin/env python3
"""Checks the plots ringlab_plot.py wrote for one report of several (type, op) (bench -d all /
-o all): exactly one busbw_vs_size, latency_vs_size and speedup_vs_baseline per (type, op) of the
report's rows, each named after its pair (busbw_vs_size_float32_sum.png and .svg), and no plot
that mixes the pairs (busbw_vs_size.png).
Usage: check_type_op_plots.py REPORT OUTDIR. Prints "type-op plots ok: P pairs, F files" or what
is wrong, and exits 1."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ringlab_reports  # noqa: E402  (the folder above, or installed)

STEMS = ("busbw_vs_size", "latency_vs_size", "speedup_vs_baseline")


def main(report, out_dir):
    frame = ringlab_reports.load(report, kind="bench")
    pairs = list(dict.fromkeys(zip(frame["type"], frame["redop"])))
    if len(pairs) < 2:
        print(f"check_type_op_plots: {report} has {len(pairs)} (type, op); give one of bench -d all / -o all")
        return 1
    expected = {f"{stem}_{datatype}_{op}.{fmt}" for stem in STEMS for datatype, op in pairs for fmt in ("png", "svg")}
    present = {name for name in os.listdir(out_dir) if not name.startswith(".")}
    missing, extra = sorted(expected - present), sorted(present - expected)
    if missing or extra:
        print(f"check_type_op_plots: {len(missing)} missing (first: {missing[:3]}), "
              f"{len(extra)} not expected (first: {extra[:3]})")
        return 1
    print(f"type-op plots ok: {len(pairs)} pairs, {len(present)} files")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
