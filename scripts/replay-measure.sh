#!/usr/bin/env bash
# The measured replay runs (results/replay/): the CPU compute profile of vgg16-miniimagenet
# measured once on one rank, then replayed at N = 4 (mpiexec -n 4) for every algorithm, dp and
# hybrid. Usage (from the repository root, after a release build):
#   OUT=results/replay/DATE bash scripts/replay-measure.sh [RUN [ITERATIONS]]
set -euo pipefail
out=${OUT:-results/replay/2026-12-03}
mkdir -p "$out"
ringlab=build/release/cli/ringlab
algos=parameter_server,ring,interval_paired,halving_doubling,recursive_doubling,mpi-native
if [[ ! -f $out/profile-cpu-vgg16-miniimagenet.json ]]; then
  $ringlab replay --workload vgg16-miniimagenet --profile measure --profile-batch 2 --backend threads --ranks 1 \
      --batch 1 --iterations 1 --algo ring --mode dp --save-profile $out/profile-cpu-vgg16-miniimagenet.json \
      | tee $out/profile-cpu-vgg16-miniimagenet.txt
fi
run=${1:-run1}
iterations=${2:-4}
mpiexec -n 4 $ringlab replay --workload vgg16-miniimagenet --algo $algos --batch 32 --iterations "$iterations" \
    --profile $out/profile-cpu-vgg16-miniimagenet.json --json $out/replay-vgg16-miniimagenet-n4-$run.json --force \
    | tee $out/replay-vgg16-miniimagenet-n4-$run.txt
