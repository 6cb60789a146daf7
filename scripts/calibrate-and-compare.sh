#!/usr/bin/env bash
# Issue 4's calibration and comparison on this machine (docs/calibration.md).
# For N = 2, 4 and 8 (mpi backend), in rounds:
#   1. calibrate (before), 2. a bench sweep, 3. calibrate again (after);
#   4. plotting/calibration_drift.py: did the machine change during the round? (the ping-pong,
#      concurrent-streaming and reduce samples of before and after: per kind, the mean change over
#      sizes >= 64 KiB <= 10 %; and in each calibration, pairs of one CPU class fitting their line
#      within 25 %; a shared VM changes speed for minutes at a time);
#   5. compare the sweep with both models on the "before" topology, and plot.
# After the rounds of an N, plotting/sweep_repeatability.py: how far its rounds' sweeps differ
# from one another (the spread a model's error is to be read against).
# A round whose calibrations agree is "steady" and ends the rounds for that N; at most ROUNDS
# rounds (default 3).
# Every round's files are kept, steady or not, and rounds.txt lists them with their drift.
# Calibration never looks at an all-reduce, and the drift check reads calibrations only.
# Usage: bash scripts/calibrate-and-compare.sh OUTDIR [BUILD]   (RANKS="2 4": fewer N; ROUNDS=5;
#   MPIEXEC_FLAGS="-bind-to core": pin the ranks, for calibrations and sweeps alike; each report's
#   "# placement" line says where they ran)
set -euo pipefail
out=${1:?usage: $0 OUTDIR [BUILD]}
build=${2:-build/release}
ringlab=$build/cli/ringlab
source "$(dirname "$0")/report-python.sh"
require_report_python calibrate-and-compare.sh  # sets $python: ${PYTHON:-python3} with pandas, matplotlib, jsonschema
py=$python
day=$(date -u +%Y-%m-%d)
max_rounds=${ROUNDS:-3}
read -r -a mpiexec_flags <<< "${MPIEXEC_FLAGS:-}"
mkdir -p "$out"
rounds=$out/$day-rounds.txt
echo "# $(date -u +%FT%TZ) scripts/calibrate-and-compare.sh $*" >> "$rounds"
for n in ${RANKS:-2 4 8}; do
  for round in $(seq 1 $max_rounds); do
    tag=$day-n$n-r$round
    mpiexec -n "$n" "${mpiexec_flags[@]}" "$ringlab" calibrate --json "$out/$tag-before.json" --force > "$out/$tag-before.txt"
    mpiexec -n "$n" "${mpiexec_flags[@]}" "$ringlab" bench -b 64K -e 64M -f 4 -n 20 --iters-small 100 --small-maxbytes 1M -w 5 \
      --json "$out/$tag-bench.json" --force > "$out/$tag-bench.txt"
    mpiexec -n "$n" "${mpiexec_flags[@]}" "$ringlab" calibrate --json "$out/$tag-after.json" --force > "$out/$tag-after.txt"
    status=0
    drift=$($py plotting/calibration_drift.py "$out/$tag-before.json" "$out/$tag-after.json") || status=$?
    ((status <= 1)) || exit "$status"
    verdict=$([[ $status == 0 ]] && echo steady || echo changed)
    "$ringlab" compare "$out/$tag-bench.json" --topology "$out/$tag-before.json" --json "$out/$tag-compare.json" \
      --force > "$out/$tag-compare.txt"
    $py plotting/compare_plot.py "$out/$tag-compare.json" --out "$out/plots-$tag"
    echo "N=$n round $round: $verdict | $drift" | tee -a "$rounds"
    [[ $verdict == steady ]] && break
  done
  if ((round > 1)); then
    $py plotting/sweep_repeatability.py $(seq -f "$out/$day-n$n-r%g-bench.json" 1 "$round") | tee -a "$rounds"
  fi
done
