#!/usr/bin/env bash
# Issue 31's MPICH export, measured: MPI_Allreduce at N = 2 (bound to cores) under MPICH's own
# selection (default: its shared-memory all-reduce on one node), under its MPIR-level tree
# (mpir: MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=mpir) and under the file `ringlab tune
# --mpich-json` wrote from a calibration taken first (tuned: mpir + the file). The three run
# interleaved REPEATS times (default 3), since this VM's speed drifts between runs; then
# plotting/mpich_tune_check.py prints the per-size medians and ratios into OUT/summary.md.
# Usage: bash scripts/mpich-tune-check.sh OUTDIR [BUILD]   (SIZES="-b 8 -e 1M -f 4": smaller;
#        ALGOS=recursive_doubling,halving_doubling: tune among these only)
set -euo pipefail
out=${1:?usage: $0 OUTDIR [BUILD]}
build=${2:-build/release}
ringlab=$build/cli/ringlab
source "$(dirname "$0")/report-python.sh"
require_report_python mpich-tune-check.sh
sizes=(${SIZES:--b 8 -e 64M -f 4})
timing=(-n 10 -w 3 --iters-small 50 --small-maxbytes 64K)
launch=(mpiexec -n 2 -bind-to core)
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) scripts/mpich-tune-check.sh $* (SIZES='${sizes[*]}' REPEATS=${REPEATS:-3} ALGOS='${ALGOS:-}')" > "$out/commands.txt"
algos=()
[[ -z ${ALGOS:-} ]] || algos=(--algo "$ALGOS")
run() { echo "$*" >> "$out/commands.txt"; "$@"; }

run "${launch[@]}" "$ringlab" calibrate --json "$out/calibration.json" --force -q
run "$ringlab" tune --topology "$out/calibration.json" --ranks 2 "${sizes[@]}" "${algos[@]}" --json "$out/tuning.json" \
  --mpich-json "$out/mpich-selection.json" --force > "$out/tuning.txt"
for repeat in $(seq "${REPEATS:-3}"); do
  for config in default mpir tuned; do
    environment=()
    [[ $config == default ]] || environment+=(MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=mpir)
    [[ $config != tuned ]] || environment+=(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$out/mpich-selection.json")
    run env "${environment[@]}" "${launch[@]}" "$ringlab" bench "${sizes[@]}" "${timing[@]}" --algo mpi-native \
      --json "$out/$config-$repeat.json" --force > "$out/$config-$repeat.txt"
  done
done
run "$python" plotting/mpich_tune_check.py "$out"/default-*.json "$out"/mpir-*.json "$out"/tuned-*.json --out "$out"
