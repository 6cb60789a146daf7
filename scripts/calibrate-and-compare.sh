#!/usr/bin/env bash
# Issue 4's calibration and comparison on this machine (results/README.md, "Calibration"):
# calibrate at N = 2, 4 and 8 (mpi backend), a fresh bench sweep at the same N, then compare the
# committed 2026-12-02 reports and the fresh ones with both models (closed form, flow-level) on the calibrated
# topologies, and plot. Usage: bash scripts/calibrate-and-compare.sh OUTDIR [BUILD]
# Calibration never looks at an all-reduce; the bench runs only after every calibration is written.
set -euo pipefail
out=${1:?usage: $0 OUTDIR [BUILD]}
build=${2:-build/release}
ringlab=$build/cli/ringlab
day=$(date -u +%Y-%m-%d)
mkdir -p "$out"
for n in 2 4 8; do
  mpiexec -n "$n" "$ringlab" calibrate --json "$out/$day-n$n.json" --force | tee "$out/$day-n$n.txt"
done
for n in 2 4 8; do
  mpiexec -n "$n" "$ringlab" bench -b 64K -e 64M -f 4 -n 10 -w 2 --json "$out/$day-bench-n$n.json" --force \
    | tee "$out/$day-bench-n$n.txt"
done
for n in 2 4 8; do
  for source in yesterday fresh; do
    report=results/bench/2026-12-02-shm/mpi-n$n.json
    [[ $source == fresh ]] && report=$out/$day-bench-n$n.json
    "$ringlab" compare "$report" --topology "$out/$day-n$n.json" --json "$out/$day-compare-$source-n$n.json" --force \
      > "$out/$day-compare-$source-n$n.txt"
    /usr/bin/python3 plotting/compare_plot.py "$out/$day-compare-$source-n$n.json" --out "$out/plots-$source-n$n"
  done
done
