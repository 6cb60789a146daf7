#!/usr/bin/env bash
# The default all-reduce sweep: mpi backend, N = 2, 4 and 8 ranks, 8 B .. 64 MiB by factor 2,
# every algorithm and MPI_Allreduce, float32 sum. Writes OUTDIR/mpi-nN.json, OUTDIR/mpi-nN.txt
# (the table), OUTDIR/plots/ and OUTDIR/goals.md (issue 3's goal tables, computed from the
# reports). Sizes up to 4 KiB get SMALL_ITERS timed calls (default 30): they take microseconds, and
# with 8 ranks on 2 cores a handful of calls is all scheduler noise.
# Usage: scripts/sweep.sh OUTDIR [ITERS] [WARMUP] [SMALL_ITERS]
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:?usage: scripts/sweep.sh OUTDIR [ITERS] [WARMUP] [SMALL_ITERS]}
iters=${2:-5}
warmup=${3:-1}
small_iters=${4:-30}
ringlab=build/release/cli/ringlab
mkdir -p "$outdir"
reports=()
for nranks in 2 4 8; do
  report="$outdir/mpi-n$nranks.json"
  mpiexec -n "$nranks" "$ringlab" bench -b 8 -e 64M -f 2 -n "$iters" -w "$warmup" --algo all \
    --iters-small "$small_iters" --small-maxbytes 4K \
    --json "$report" --force | tee "$outdir/mpi-n$nranks.txt"
  reports+=("$report")
done
/usr/bin/python3 plotting/validate_report.py "${reports[@]}"
/usr/bin/python3 plotting/ringlab_plot.py "${reports[@]}" --out "$outdir/plots"
/usr/bin/python3 plotting/goal_tables.py "${reports[@]}" | tee "$outdir/goals.md"
