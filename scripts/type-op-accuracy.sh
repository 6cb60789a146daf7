#!/usr/bin/env bash
# Issue 29's held-out accuracy check: ONE calibration at N = 2 with the ranks bound to cores, then a
# bench sweep (64 KiB .. 64 MiB, every algorithm) for each of five (type, op) pairs, each compared
# with both models on that one calibration. plotting/type_op_accuracy.py then writes the median
# |error| per pair, algorithm and model (summary.md) and a plot. The calibration never sees an
# all-reduce; each pair's gamma comes from its own reduce-kernel measurement in the calibration.
# Usage: bash scripts/type-op-accuracy.sh OUTDIR [BUILD]   (PAIRS="float32:sum bfloat16:max": fewer)
set -euo pipefail
out=${1:?usage: $0 OUTDIR [BUILD]}
build=${2:-build/release}
ringlab=$build/cli/ringlab
source "$(dirname "$0")/report-python.sh"
require_report_python type-op-accuracy.sh  # sets $python: ${PYTHON:-python3} with pandas, matplotlib, jsonschema
py=$python
launch=(mpiexec -n 2 -bind-to core)
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) scripts/type-op-accuracy.sh $*" > "$out/commands.txt"
run() { echo "$*" >> "$out/commands.txt"; "$@"; }
run "${launch[@]}" "$ringlab" calibrate --json "$out/calibration.json" --force > "$out/calibration.txt"
compares=()
for pair in ${PAIRS:-float32:sum float64:sum bfloat16:max float16:sum int32:prod}; do
  type=${pair%%:*}
  op=${pair##*:}
  run "${launch[@]}" "$ringlab" bench -b 64K -e 64M -f 4 -n 20 --iters-small 100 --small-maxbytes 1M -w 5 \
    -d "$type" -o "$op" --json "$out/bench-$type-$op.json" --force > "$out/bench-$type-$op.txt"
  run "$ringlab" compare "$out/bench-$type-$op.json" --topology "$out/calibration.json" \
    --json "$out/compare-$type-$op.json" --force > "$out/compare-$type-$op.txt"
  compares+=("$out/compare-$type-$op.json")
done
run "$py" plotting/type_op_accuracy.py "${compares[@]}" --out "$out"
