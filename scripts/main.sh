#!/usr/bin/env bash
# The main job: install missing packages, build, prove every algorithm's schedule for 1..64 ranks,
# then the default all-reduce sweep (scripts/sweep.sh: mpi backend, N = 2, 4, 8, 8 B .. 64 MiB,
# every algorithm and MPI_Allreduce, checked) with reports, tables and plots in build/main-sweep/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target ringlab
build/release/cli/ringlab verify --algo all --ranks 1..64 --quiet
bash scripts/sweep.sh build/main-sweep 3 1  # 3 timed iterations keep it near 3 minutes on 2 cores
