#!/usr/bin/env bash
# Scale predictions of the flow-level model (issue 4, part 5), written into OUTDIR:
#   <machine>.json/.txt + plots-<machine>/   busbw vs size, 8 B .. 512 MiB by 4, every algorithm, on
#                                            an 8-GPU NVSwitch node, an 8-GPU PCIe server, a 16x16
#                                            torus and a 1024-GPU cluster (128 NVSwitch nodes, NIC
#                                            per GPU, two-level fat-tree)
#   vs-n-<network>/N.json + plots-vs-n-<network>/ + vs-n-<network>.md
#                                            time vs N = 2 .. 4096 at 1 KiB, 256 KiB, 64 MiB on
#                                            switch:N and on NVSwitch clusters of N/8 nodes
# Usage: scripts/scale-predictions.sh OUTDIR [RINGLAB]   (RINGLAB: build/release/cli/ringlab)
# All networks are GPU networks, so the reduction is priced at --gamma 1e-12 s/B: a round figure
# for an HBM GPU (about 3 TB/s of memory traffic, 3 bytes moved per byte reduced), not a
# measurement; the presets' bandwidths and latencies are their documented defaults
# (docs/topology-format.md). Takes about 2 minutes on one core; every figure is a prediction.
gamma=1e-12
set -euo pipefail
out=${1:?usage: scripts/scale-predictions.sh OUTDIR [RINGLAB]}
ringlab=${2:-build/release/cli/ringlab}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/report-python.sh"
require_report_python scale-predictions.sh  # sets $python: ${PYTHON:-python3} with pandas, matplotlib, jsonschema
[[ -x $ringlab ]] || { echo "scale-predictions.sh: $ringlab is not an executable; build first (scripts/test.sh)" >&2; exit 2; }
mkdir -p "$out"

declare -A machines=([nvswitch-node-8]=nvswitch:8 [pcie-server-8]=pcie-tree [torus-16x16]=torus2d:16x16
                     [cluster-1024]=nvswitch:8,nodes:128)
for name in nvswitch-node-8 pcie-server-8 torus-16x16 cluster-1024; do
  "$ringlab" simulate --topology "${machines[$name]}" -b 8 -e 512M -f 4 --gamma "$gamma" --json "$out/$name.json" --force > "$out/$name.txt"
  "$python" "$here/plotting/ringlab_plot.py" "$out/$name.json" --out "$out/plots-$name" > /dev/null
done

for network in switch cluster; do
  mkdir -p "$out/vs-n-$network"
  for ((n = 2; n <= 4096; n *= 2)); do
    if [[ $network == switch ]]; then topology=switch:$n
    elif ((n <= 8)); then topology=nvswitch:$n
    else topology=nvswitch:8,nodes:$((n / 8)); fi
    "$ringlab" simulate --topology "$topology" -b 1K -e 64M -f 256 --gamma "$gamma" --quiet --json "$out/vs-n-$network/$n.json" --force
  done
  "$python" "$here/plotting/scale_plot.py" "$out"/vs-n-$network/*.json --out "$out/plots-vs-n-$network" \
    | grep -v '^wrote ' > "$out/vs-n-$network.md"
done
echo "scale-predictions.sh: wrote $out"
