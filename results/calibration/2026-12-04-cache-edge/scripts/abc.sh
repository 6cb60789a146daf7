#!/usr/bin/env bash
# A/B/C on the same rounds: one fine calibration (-f 2, reduce at every power of two across the cache cliff),
# refit coarse (A: ping-pong/streaming on the -f 4 grid, reduce without 8-32 MiB), B: A + the fine reduce, C: all.
set -euo pipefail
out=$1; b=build/dev/cli/ringlab; py=/usr/bin/python3
mkdir -p $out
for n in ${RANKS:-2 4}; do
  for round in 1 2 3; do
    t=$out/n$n-r$round
    mpiexec -n $n $b calibrate -f 2 --json $t-before.json --force > $t-before.txt
    mpiexec -n $n $b bench -b 64K -e 64M -f 4 -n 20 --iters-small 100 --small-maxbytes 1M -w 5 --json $t-bench.json --force > $t-bench.txt
    mpiexec -n $n $b calibrate -f 2 --json $t-after.json --force > $t-after.txt
    st=0; drift=$($py plotting/calibration_drift.py $t-before.json $t-after.json) || st=$?
    $py - $t-before.json $t <<'PY'
import json,sys,copy
d=json.load(open(sys.argv[1])); t=sys.argv[2]
grid={8*4**k for k in range(13)}|{64<<20}
def coarse_pp(c):
    for p in c['ping_pong']['pairs']: p['samples']=[s for s in p['samples'] if s['bytes'] in grid]
    c['concurrent']['samples']=[s for s in c['concurrent']['samples'] if s['bytes'] in grid]
def coarse_reduce(c):
    c['reduce']['samples']=[s for s in c['reduce']['samples'] if not (8<<20 <= s['bytes'] <= 32<<20)]
a=copy.deepcopy(d); coarse_pp(a['calibration']); coarse_reduce(a['calibration']); json.dump(a,open(t+'-A-record.json','w'))
b=copy.deepcopy(d); coarse_pp(b['calibration']); json.dump(b,open(t+'-B-record.json','w'))
PY
    for v in A B; do $b calibrate --from-report $t-$v-record.json --json $t-$v.json --force > /dev/null; done
    cp $t-before.json $t-C.json
    for v in A B C; do $b compare $t-bench.json --topology $t-$v.json --json $t-$v-compare.json --force > $t-$v-compare.txt; done
    echo "N=$n r$round status=$st $drift"
    [[ $st == 0 ]] && break
  done
done
