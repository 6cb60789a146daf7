#!/usr/bin/env bash
# Issue 6's accuracy goal: dp and hybrid at N = 4 on synthetic CIFAR-format files (written by
# make-cifar, read back by the CIFAR-10 reader), cifar-vgg (FC 4096 -> 4096 -> 10), the same
# steps, seed and global batch; every batch is unseen (10K records, 150 steps of 32), so a batch's
# accuracy before its update measures generalisation. summary.md: mean accuracy over the last 20
# steps (640 images) and images/s per mode, one row per learning rate. Usage (from the repository
# root, after a build; LRS: the learning rates, default 0.01, train's default):
#   RINGLAB=build/release/cli/ringlab LRS="0.01 0.005" bash results/training/2026-12-04-accuracy/measure.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=results/training/2026-12-04-accuracy
ringlab=${RINGLAB:-build/release/cli/ringlab}
learning_rates=${LRS:-0.01}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$ringlab" make-cifar --out "$data" --records 10K --files 5 > /dev/null
for lr in $learning_rates; do
  for mode in dp hybrid; do
    uptime > "$out/$mode-n4-lr$lr.txt"
    mpiexec -n 4 "$ringlab" train --mode "$mode" --algo interval_paired --model cifar-vgg --data "$data" --lr "$lr" \
      --steps 150 --batch 32 --log-every 10 --json "$out/$mode-n4-lr$lr.json" --force >> "$out/$mode-n4-lr$lr.txt" 2>&1
  done
done
python3 - "$out" > "$out/summary.md" <<'PY'
import glob, json, re, sys
out = sys.argv[1]
print("| learning rate | mode | mean accuracy, steps 131-150 | final loss | images/s | ms per step |")
print("|---|---|---|---|---|---|")
rates = sorted({re.search(r"-lr([0-9.]+)\.json$", f).group(1) for f in glob.glob(f"{out}/*-n4-lr*.json")}, key=float)
for lr in rates:
    for mode in ("dp", "hybrid"):
        report = json.load(open(f"{out}/{mode}-n4-lr{lr}.json"))
        steps = report["steps"]
        last = [s["accuracy"] for s in steps[-20:]]
        summary = report["summary"]
        print(f"| {lr} | {mode} | {100 * sum(last) / len(last):.2f} % | {steps[-1]['loss']:.4f} | "
              f"{summary['images_per_second']:.1f} | {1000 * summary['mean_iteration_seconds']:.1f} |")
PY
cat "$out/summary.md"
