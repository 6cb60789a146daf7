#!/usr/bin/env bash
# Issue 6's accuracy goal under train's default learning rate (0.005): dp and hybrid at N = 4 on
# synthetic CIFAR-format files (make-cifar, read back by the CIFAR-10 reader), cifar-vgg
# (FC 4096 -> 4096 -> 10), 150 steps of global batch 32, every batch unseen, for several seeds of
# the initial weights. summary.md: mean accuracy over the last 20 steps (640 images), final loss,
# images/s per mode and seed. Usage (from the repository root, after a build; SEEDS default "1 2 3"):
#   RINGLAB=build/release/cli/ringlab OUT=results/training/DATE bash scripts/train-accuracy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/training/2026-12-04-default-lr}
mkdir -p "$out"
ringlab=${RINGLAB:-build/release/cli/ringlab}
seeds=${SEEDS:-1 2 3}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$ringlab" make-cifar --out "$data" --records 10K --files 5 > /dev/null
for seed in $seeds; do
  for mode in dp hybrid; do
    uptime > "$out/$mode-n4-seed$seed.txt"
    mpiexec -n 4 "$ringlab" train --mode "$mode" --algo interval_paired --model cifar-vgg --data "$data" --seed "$seed" \
      --steps 150 --batch 32 --log-every 10 --json "$out/$mode-n4-seed$seed.json" --force >> "$out/$mode-n4-seed$seed.txt" 2>&1
  done
done
python3 - "$out" > "$out/summary.md" <<'PY'
import glob, json, re, sys
out = sys.argv[1]
print("| seed | mode | learning rate (from the report) | mean accuracy, steps 131-150 | final loss | images/s | ms per step |")
print("|---|---|---|---|---|---|---|")
seeds = sorted({int(re.search(r"-seed([0-9]+)\.json$", f).group(1)) for f in glob.glob(f"{out}/*-n4-seed*.json")})
for seed in seeds:
    for mode in ("dp", "hybrid"):
        report = json.load(open(f"{out}/{mode}-n4-seed{seed}.json"))
        steps = report["steps"]
        last = [s["accuracy"] for s in steps[-20:]]
        summary = report["summary"]
        print(f"| {seed} | {mode} | {report['config']['learning_rate']:g} | {100 * sum(last) / len(last):.2f} % | "
              f"{steps[-1]['loss']:.4f} | {summary['images_per_second']:.1f} | {1000 * summary['mean_iteration_seconds']:.1f} |")
PY
cat "$out/summary.md"
