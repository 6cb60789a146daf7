#!/usr/bin/env bash
# The main job: install missing packages, build every target the README runs (the CLI, the
# micro benchmarks and closed-form scans, the soak test: `ctest -L soak` works afterwards), prove
# every algorithm's schedule for 1..64 ranks, then the default all-reduce sweep (scripts/sweep.sh):
# performance figures only from ranks bound to a core each (N = 2 on 2 cores), the larger N
# oversubscribed and labelled so, for correctness and latency ordering. Output in build/main-sweep/;
# the main result is build/main-sweep/speedup-vs-mpi.md.
# Usage: scripts/main.sh [MAX_SECONDS]   (per size and algorithm for --converge; default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target ringlab ringlab_micro ringlab_closed_form_scan \
  ringlab_closed_form_size_scan ringlab_soak_tests
build/release/cli/ringlab verify --algo all --ranks 1..64 --quiet
bash scripts/sweep.sh build/main-sweep "${1:-1}"
echo "main.sh: done; the speed-up table is build/main-sweep/speedup-vs-mpi.md (results/bench/README.md says what each file is)"
