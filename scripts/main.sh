#!/usr/bin/env bash
# The main job: install missing packages, build, prove every algorithm's schedule for 1..64 ranks,
# then run, time and check a short all-reduce of every algorithm on 4 MPI ranks.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target ringlab
ringlab=build/release/cli/ringlab
"$ringlab" verify --algo all --ranks 1..64 --quiet
mpiexec -n 4 "$ringlab" allreduce --algo all --count 1M --iters 5
