#!/usr/bin/env bash
# The default all-reduce sweep (mpi backend, 8 B .. 64 MiB by factor 2, every algorithm and
# MPI_Allreduce, float32 sum, checked), in two kinds of run:
#   - performance: N ranks bound to a core each (mpiexec -bind-to core) where the machine has N
#     usable cores (N = 2 on a 2-core machine), each size timed until its median's 95 % interval is
#     within 5 % (--converge 0.05,MAX_SECONDS): OUTDIR/mpi-nN-bound.{json,txt}, OUTDIR/plots/, and
#     OUTDIR/speedup-vs-mpi.md (ring and interval_paired over MPI_Allreduce with intervals,
#     plotting/goal_tables.py). Only these runs give bandwidths and ratios.
#   - correctness and latency ordering: the N of 2, 4, 8 that exceed the usable cores, unbound and
#     oversubscribed, a few calls each: OUTDIR/mpi-nN-oversubscribed.{json,txt},
#     OUTDIR/plots-oversubscribed/; their headers, reports and plot titles say "oversubscribed".
# Usage: scripts/sweep.sh OUTDIR [MAX_SECONDS] [ITERS] [SMALL_ITERS]
#   MAX_SECONDS: the most time --converge spends on one (size, algorithm, placement) (default 1)
#   ITERS / SMALL_ITERS: timed calls of the oversubscribed runs (default 3 / 30 for sizes <= 4 KiB)
# PYTHON (default python3) runs the plotting scripts; it needs pandas, matplotlib and jsonschema.
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:?usage: scripts/sweep.sh OUTDIR [MAX_SECONDS] [ITERS] [SMALL_ITERS]}
max_seconds=${2:-1}
iters=${3:-3}
small_iters=${4:-30}
source scripts/report-python.sh
require_report_python sweep.sh  # sets $python
ringlab=build/release/cli/ringlab
cores=$(nproc)  # the CPUs this shell, and so mpiexec's ranks, may use

# A performance run times each (size, algorithm, placement) until its median's 95 % interval is
# within 5 % of it, or MAX_SECONDS are spent (rows that did not converge are named in the footer).
timing=(--converge "0.05,$max_seconds")

mkdir -p "$outdir"
performance=()
oversubscribed=()
for nranks in 2 4 8; do
  if ((nranks <= cores)); then
    report="$outdir/mpi-n$nranks-bound.json"
    mpiexec -n "$nranks" -bind-to core "$ringlab" bench -b 8 -e 64M -f 2 -w 2 "${timing[@]}" --algo all \
      --json "$report" --force | tee "${report%.json}.txt"
    performance+=("$report")
  else
    report="$outdir/mpi-n$nranks-oversubscribed.json"
    mpiexec -n "$nranks" "$ringlab" bench -b 8 -e 64M -f 2 -n "$iters" -w 1 --algo all \
      --iters-small "$small_iters" --small-maxbytes 4K --json "$report" --force | tee "${report%.json}.txt"
    oversubscribed+=("$report")
  fi
done
"$python" plotting/validate_report.py "${performance[@]}" "${oversubscribed[@]}"
rm -rf "$outdir/plots" "$outdir/plots-oversubscribed"
"$python" plotting/ringlab_plot.py "${performance[@]}" --out "$outdir/plots"
if ((${#oversubscribed[@]})); then
  "$python" plotting/ringlab_plot.py "${oversubscribed[@]}" --out "$outdir/plots-oversubscribed"
fi
"$python" plotting/goal_tables.py "${performance[@]}" "${oversubscribed[@]}" > "$outdir/speedup-vs-mpi.md"
cat "$outdir/speedup-vs-mpi.md"
