#!/usr/bin/env bash
# Offline A/B of a model change on the committed N = 2 and N = 4 rounds: each (bench, topology)
# pair in rounds.txt is compared twice by RINGLAB (a ringlab built with both patches here): A
# with the variables named in A_ENV set to 1, B with those in B_ENV, into OUT/K-{A,B}.json;
# summarize.py prints per-round medians and in how many rounds B did better. Without a variable
# set, each patched place does what the committed model does not:
#   RINGLAB_HACK_ALLSCRATCH unset: scratch counted only for receives that overlap another op of
#     the step (executor-scratch.patch; set = the committed rule, every received byte);
#   RINGLAB_HACK_WHOLE set: whole transfers in the flow-level model, no pieces (whole-transfers.patch).
# The two tests of results/README.md ("Two offline tests"):
#   A_ENV=RINGLAB_HACK_ALLSCRATCH B_ENV="RINGLAB_HACK_ALLSCRATCH RINGLAB_HACK_WHOLE" bash run.sh OUT1
#   A_ENV=RINGLAB_HACK_ALLSCRATCH B_ENV= bash run.sh OUT2
set -euo pipefail
out=${1:?usage: RINGLAB=... A_ENV=... B_ENV=... bash run.sh OUT}
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
i=0
while read -r bench topo; do
  i=$((i + 1))
  env $(for v in ${A_ENV:-}; do echo "$v=1"; done) "$RINGLAB" compare "$bench" --topology "$topo" --json "$out/$i-A.json" --force > /dev/null
  env $(for v in ${B_ENV:-}; do echo "$v=1"; done) "$RINGLAB" compare "$bench" --topology "$topo" --json "$out/$i-B.json" --force > /dev/null
  echo "$i $bench $topo"
done < results/calibration/2026-12-04-offline-tests/rounds.txt
