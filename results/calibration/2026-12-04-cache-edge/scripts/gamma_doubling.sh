# For each (bench, topology) pair: compare with the topology as is, and with gamma x2 at footprints >= $THR
set -e
b=/work/main/build/dev/cli/ringlab
i=0
for pair in "$@"; do
  bench=${pair%%:*}; topo=${pair##*:}
  i=$((i+1)); o=/tmp/gt/$i; mkdir -p /tmp/gt
  python3 - $topo $o-topo2.json ${THR:-48e6} <<'PY'
import json,sys
d=json.load(open(sys.argv[1])); thr=float(sys.argv[3])
for p in d['footprint_curves']['gamma_seconds_per_byte']:
    if p['footprint_bytes']>=thr: p['value']*=2
json.dump(d,open(sys.argv[2],'w'))
PY
  $b compare $bench --topology $topo --json $o-A-compare.json --force >/dev/null
  $b compare $bench --topology $o-topo2.json --json $o-B-compare.json --force >/dev/null
  echo "$o $bench"
done
