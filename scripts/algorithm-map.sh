#!/usr/bin/env bash
# Where each all-reduce algorithm wins, per topology (issue 31, part 2; docs/algorithm-map.md).
# Predicts every registered algorithm (--algo all) with `ringlab simulate --link-stats` and writes
#   OUT/<family>/n<N>.<model>.json   a predicted ringlab.bench/1 report per network and model:
#                                    time, busbw, bytes on links, busiest link, lower bound per row
#   OUT/timings.tsv                  CPU seconds and peak memory of each simulate run
#   OUT/plots/                       map.csv, winners_*.png/.svg, bound_*.png/.svg
#   OUT/summary.md                   plotting/algorithm_map.py's summary
# Families (N = 16 .. 4096, powers of two and non-powers; sizes 32 B .. 256 MiB by 2):
#   ring         ring:N
#   torus-square torus2d:RxR (N = 4^k, and 6x6, 12x12, 24x24)
#   torus-4to1   torus2d:4CxC (rows first, so ranks [0, N/2) are a half across the short side)
#   switch       switch:N
#   fat-tree     nvswitch:8,nodes=N/8,leaf_ports=4,taper=2: 8-GPU nodes, a rail-optimised fat-tree of
#                4 nodes a leaf with a 2:1 tapered spine
#   dragonfly    the smallest balanced dragonfly (a = 2p = 2h, p = 2, 4, 8) of N ranks: routers=2p,
#                ranks=p, global=p, N / 2p^2 groups
# Usage: scripts/algorithm-map.sh OUT [RINGLAB]     (RINGLAB: build/release/cli/ringlab)
# Environment: MAP_MODELS (default "closed-form flow-level"), MAP_FLOW_MAX_N (default 256: the
# flow-level model only up to this N), MAP_FAMILIES (default all six), MAP_MAX_N (default 4096),
# MAP_FLOW_FACTOR (default 4: the flow level's sizes go by this factor), MAP_TIME_LIMIT (default
# 900 s a run). The reduction is priced at --gamma 1e-12 s/B (an HBM GPU, as scripts/scale-predictions.sh);
# the presets' bandwidths and latencies are their documented defaults (docs/topology-format.md). Every figure is a prediction.
set -euo pipefail
out=${1:?usage: scripts/algorithm-map.sh OUT [RINGLAB]}
ringlab=${2:-build/release/cli/ringlab}
models=${MAP_MODELS:-closed-form flow-level}
flow_max_n=${MAP_FLOW_MAX_N:-256}
max_n=${MAP_MAX_N:-4096}
flow_factor=${MAP_FLOW_FACTOR:-4}
families=${MAP_FAMILIES:-ring torus-square torus-4to1 switch fat-tree dragonfly}
gamma=1e-12
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/report-python.sh"
require_report_python algorithm-map.sh  # sets $python: ${PYTHON:-python3} with pandas, matplotlib, jsonschema
[[ -x $ringlab ]] || { echo "algorithm-map.sh: $ringlab is not an executable; build first (scripts/test.sh)" >&2; exit 2; }
mkdir -p "$out"

powers=(16 32 64 128 256 512 1024 2048 4096)
# "N preset" lines of one family, N <= max_n.
presets_of() {
  local family=$1 n side p
  case $family in
    ring | switch)
      for n in "${powers[@]}" 24 96 384; do echo "$n $family:$n"; done ;;
    torus-square)
      for side in 4 6 8 12 16 24 32 64; do echo "$((side * side)) torus2d:${side}x${side}"; done ;;
    torus-4to1)
      for side in 2 3 4 6 8 12 16 32; do echo "$((4 * side * side)) torus2d:$((4 * side))x${side}"; done ;;
    fat-tree)
      for n in "${powers[@]}" 24 96 384; do echo "$n nvswitch:8,nodes=$((n / 8)),leaf_ports=4,taper=2"; done ;;
    dragonfly)
      for n in "${powers[@]}" 24 96 384 1536; do
        if ((n <= 72)); then p=2; elif ((n <= 1056)); then p=4; else p=8; fi
        echo "$n dragonfly:$((n / (2 * p * p))),routers=$((2 * p)),ranks=$p,global=$p"
      done ;;
    *) echo "algorithm-map.sh: unknown family $family" >&2; exit 2 ;;
  esac | while read -r n preset; do ((n <= max_n)) && echo "$n $preset"; done | sort -n
}

printf 'family\tN\tmodel\ttopology\tuser_s\tsystem_s\tmax_rss_kib\n' > "$out/timings.tsv"
for family in $families; do
  mkdir -p "$out/$family"
  while read -r n preset; do
    for model in $models; do
      sizes=(-b 32 -e 256M -f 2)
      if [[ $model == flow-level ]]; then
        ((n <= flow_max_n)) || continue
        sizes=(-b 32 -e 128M -f "$flow_factor")
      fi
      report=$out/$family/n$n.$model.json
      timing=$(mktemp)
      /usr/bin/time -f "%U\t%S\t%M" -o "$timing" "$ringlab" simulate --topology "$preset" --algo all "${sizes[@]}" \
        --gamma "$gamma" --model "$model" --link-stats --time-limit "${MAP_TIME_LIMIT:-900}" --quiet --json "$report" --force
      printf '%s\t%s\t%s\t%s\t%s\n' "$family" "$n" "$model" "$preset" "$(tail -n 1 "$timing")" >> "$out/timings.tsv"
      rm -f "$timing"
      echo "algorithm-map.sh: $family N = $n $model: $(tail -n 1 "$out/timings.tsv" | cut -f 5) s" >&2
    done
  done < <(presets_of "$family")
done
"$python" "$here/plotting/algorithm_map.py" "$out" --out "$out/plots" | grep -v '^wrote ' > "$out/summary.md"
echo "algorithm-map.sh: wrote $out"
