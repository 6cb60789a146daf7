#!/usr/bin/env bash
# The default all-reduce sweep: mpi backend, N = 2, 4 and 8 ranks, 8 B .. 64 MiB by factor 2,
# every algorithm and MPI_Allreduce, float32 sum. Writes OUTDIR/mpi-nN.json, OUTDIR/mpi-nN.txt
# (the table), OUTDIR/plots/ and OUTDIR/goals.md (issue 3's goal tables, computed from the
# reports). Usage: scripts/sweep.sh OUTDIR [ITERS] [WARMUP]
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:?usage: scripts/sweep.sh OUTDIR [ITERS] [WARMUP]}
iters=${2:-5}
warmup=${3:-1}
ringlab=build/release/cli/ringlab
mkdir -p "$outdir"
reports=()
for nranks in 2 4 8; do
  report="$outdir/mpi-n$nranks.json"
  mpiexec -n "$nranks" "$ringlab" bench -b 8 -e 64M -f 2 -n "$iters" -w "$warmup" --algo all \
    --json "$report" --force | tee "$outdir/mpi-n$nranks.txt"
  reports+=("$report")
done
/usr/bin/python3 plotting/validate_report.py "${reports[@]}"
/usr/bin/python3 plotting/ringlab_plot.py "${reports[@]}" --out "$outdir/plots"
/usr/bin/python3 plotting/goal_tables.py "${reports[@]}" | tee "$outdir/goals.md"
