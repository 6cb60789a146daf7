#!/usr/bin/env bash
# The replay predictions (results/replay/): vgg16-miniimagenet, 32 samples per GPU, compute from
# FLOPs at an ASSUMED 15 TFLOP/s per GPU (not a measurement), flow-level model. Needs the CPU
# profile that scripts/replay-measure.sh writes into the same folder. Usage (from the repository
# root, after a release build):  OUT=results/replay/DATE bash scripts/replay-predict.sh
set -euo pipefail
out=${OUT:-results/replay/2026-12-03}
ringlab=build/release/cli/ringlab
common=(--workload vgg16-miniimagenet --device-tflops 15 --force)
# 8 GPUs: PCIe tree (2 switches x 4 GPUs) and one NVSwitch node
$ringlab simulate "${common[@]}" --topology pcie-tree --batch 256 --json $out/predict-pcie-tree-n8.json > $out/predict-pcie-tree-n8.txt
$ringlab simulate "${common[@]}" --topology nvswitch:8 --batch 256 --json $out/predict-nvswitch-n8.json > $out/predict-nvswitch-n8.txt
# speed-up vs N: one NVSwitch node of N GPUs up to 8, then nodes of 8 over the fat-tree (200 Gb/s per GPU)
for n in 2 4 8; do
  $ringlab simulate "${common[@]}" --topology nvswitch:$n --batch $((32 * n)) --quiet --json $out/curve-nvswitch-n$n.json
done
for nodes in 2 4 8 16; do
  n=$((8 * nodes))
  $ringlab simulate "${common[@]}" --topology nvswitch:8,nodes=$nodes --batch $((32 * n)) --quiet \
      --json $out/curve-nvswitch-n$n.json
done
# the other networks on one NVSwitch node: AlexNet (large head), ResNet-50 (no large head: the counter-example)
for w in alexnet resnet50; do
  $ringlab simulate --workload $w --device-tflops 15 --force --topology nvswitch:8 --batch 256 \
      --json $out/predict-$w-nvswitch-n8.json > $out/predict-$w-nvswitch-n8.txt
done
# the measured CPU run's setting, predicted with its measured CPU profile on the host-shm model
$ringlab simulate --workload vgg16-miniimagenet --profile $out/profile-cpu-vgg16-miniimagenet.json --force \
    --topology host-shm:4,cores=2 --batch 32 --json $out/predict-host-shm-n4.json > $out/predict-host-shm-n4.txt
"${PYTHON:-python3}" plotting/replay_plot.py $out/curve-nvswitch-n*.json --out $out/plots
