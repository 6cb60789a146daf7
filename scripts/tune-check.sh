#!/usr/bin/env bash
# Issue 31's `ringlab tune` check: calibrate first, tune on the calibration, then sweep every
# algorithm and `auto` in the same bench run and compare auto with the measured best
# (plotting/tune_check.py). Two parts:
#   threads backend, N = RANKS (default 2..8): calibrate --backend threads, tune --ranks RANKS;
#   mpi backend, N = 2 bound to cores: mpiexec -n 2 -bind-to core calibrate, tune, and bench with
#   mpi-native (MPI_Allreduce's own choice) beside.
# N > 2 threads ranks are oversubscribed on a 2-core machine (latency ordering, not bandwidth).
# Usage: bash scripts/tune-check.sh OUTDIR [BUILD]   (RANKS="2 4" SIZES="-b 8 -e 1M -f 4": smaller)
set -euo pipefail
out=${1:?usage: $0 OUTDIR [BUILD]}
build=${2:-build/release}
ringlab=$build/cli/ringlab
source "$(dirname "$0")/report-python.sh"
require_report_python tune-check.sh
ranks=${RANKS:-2 3 4 5 6 7 8}
sizes=(${SIZES:--b 8 -e 64M -f 4})
timing=(-n 10 -w 3 --iters-small 50 --small-maxbytes 64K)
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) scripts/tune-check.sh $* (RANKS='$ranks' SIZES='${sizes[*]}')" > "$out/commands.txt"
run() { echo "$*" >> "$out/commands.txt"; "$@"; }
most=$(tr ' ' '\n' <<<"$ranks" | sort -n | tail -1)
reports=()

run "$ringlab" calibrate --backend threads --ranks 2 --endpoints "$most" --json "$out/calibration-threads.json" --force -q
run "$ringlab" tune --topology "$out/calibration-threads.json" --ranks "$(tr ' ' ',' <<<"$ranks")" "${sizes[@]}" \
  --json "$out/tuning-threads.json" --force > "$out/tuning-threads.txt"
for n in $ranks; do
  run "$ringlab" bench --backend threads --ranks "$n" "${sizes[@]}" "${timing[@]}" --algo all,auto \
    --tuning "$out/tuning-threads.json" --json "$out/bench-threads-n$n.json" --force > "$out/bench-threads-n$n.txt"
  reports+=("$out/bench-threads-n$n.json")
done

launch=(mpiexec -n 2 -bind-to core)
run "${launch[@]}" "$ringlab" calibrate --json "$out/calibration-mpi.json" --force -q
run "$ringlab" tune --topology "$out/calibration-mpi.json" --ranks 2 "${sizes[@]}" --json "$out/tuning-mpi.json" \
  --force > "$out/tuning-mpi.txt"
run "${launch[@]}" "$ringlab" bench "${sizes[@]}" "${timing[@]}" --algo all,auto --tuning "$out/tuning-mpi.json" \
  --json "$out/bench-mpi-n2.json" --force > "$out/bench-mpi-n2.txt"
reports+=("$out/bench-mpi-n2.json")

run "$python" plotting/tune_check.py "${reports[@]}" --out "$out"
