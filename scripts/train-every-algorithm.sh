#!/usr/bin/env bash
# dp vs hybrid for every algorithm, cifar-vgg (FC 4096 -> 4096 -> 10), N = 4, the same flags as
# the interval_paired runs in results/training/2026-12-03/. Modes alternate per algorithm so that a
# change in machine load hits both. Usage (after a release build):
#   OUT=results/training/DATE bash scripts/train-every-algorithm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/training/2026-12-03-every-algorithm}
mkdir -p "$out"
ringlab=build/release/cli/ringlab
for algo in parameter_server ring interval_paired halving_doubling recursive_doubling mpi-native; do
  modes="dp hybrid"
  case $algo in halving_doubling|recursive_doubling|mpi-native) modes=dp ;; esac  # no reduce-scatter/all-gather
  for mode in $modes; do
    uptime > "$out/$mode-$algo-n4.txt"
    mpiexec -n 4 "$ringlab" train --mode "$mode" --algo "$algo" --model cifar-vgg --synthetic 4K --steps 10 \
      --batch 32 --json "$out/$mode-$algo-n4.json" --force >> "$out/$mode-$algo-n4.txt" 2>&1
  done
done
