#!/usr/bin/env bash
# openmpi_sweep.sh SOURCE_DIR REPORT: CTest mpi.openmpi_sweep. Builds ringlab against Open MPI
# (CMake preset `openmpi-check`: the `openmpi` preset at -O0, target ringlab only, in
# SOURCE_DIR/build/openmpi-check; ccache when present)
# and runs a small checked sweep of every algorithm and MPI_Allreduce under Open MPI's mpirun with
# 2 ranks. Exit 77 (skipped) with the reason where Open MPI's compiler wrapper or launcher is missing.
set -euo pipefail
source_dir=$1
report=$2
for tool in mpicxx.openmpi mpirun.openmpi; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipped: $tool not found (Debian: apt-get install openmpi-bin libopenmpi-dev)"
    exit 77
  fi
done
command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
cd "$source_dir"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { cmake --preset openmpi-check && cmake --build --preset openmpi-check; } >"$log" 2>&1; then
  cat "$log"
  echo "openmpi_sweep: building the openmpi-check preset failed"
  exit 1
fi
# --oversubscribe: 2 ranks on a 1-core machine too; Open MPI refuses root without --allow-run-as-root.
launch=(mpirun.openmpi -n 2 --oversubscribe)
[[ $(id -u) -ne 0 ]] || launch+=(--allow-run-as-root)
"${launch[@]}" build/openmpi-check/cli/ringlab bench -b 8 -e 1K -f 4 -n 2 -w 1 --json "$report" --force
