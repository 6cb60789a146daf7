#!/usr/bin/env bash
# Issue 32, point 4: ringlab's predictions of published nccl-tests all_reduce_perf tables.
# Usage: bash scripts/published-tables.sh TABLES.json OUT [BUILD]
#   TABLES.json: the published tables (id, system, command, rows; see the validation data's README);
#   scripts/published-presets.json beside this script (or $PRESETS) names each table's preset
#   (spec sheets only), algorithms and bottleneck level, with the reasons.
# Per table ID, in OUT/ID/: apriori.{txt,json} (simulate --emulate nccl on the preset alone, every
# size of the table; the fastest algorithm per size is the prediction), the three probes of the
# two sizes the fit uses (the smallest with a float32 element per rank, and the largest:
# probe-{base,lat,bw}.json), fit.txt (the level's latency and bandwidth that put the model through
# those two rows), calibrated.{txt,json} (every size with them), and measured.txt (the rows as
# nccl-tests text) with compare.{txt,json} (`ringlab compare` on it, the first algorithm).
# Then plotting/published_tables.py writes OUT/summary.md, OUT/rows.csv and OUT/ID/busbw.png/.svg;
# it exits 3 when some table misses a goal, which this script reports and passes on.
set -euo pipefail
tables=${1:?usage: $0 TABLES.json OUT [BUILD]}
out=${2:?usage: $0 TABLES.json OUT [BUILD]}
build=${3:-build/release}
ringlab=$build/cli/ringlab
here=$(dirname "$0")
mapping=${PRESETS:-$here/published-presets.json}
source "$here/report-python.sh"
require_report_python published-tables.sh  # sets $python: ${PYTHON:-python3} with pandas, matplotlib, jsonschema
py=$python
analysis=$here/../plotting/published_tables.py
[[ -f $tables ]] || { echo "published-tables.sh: $tables does not exist; give the published nccl-tests tables JSON" >&2; exit 2; }
[[ -x $ringlab ]] || { echo "published-tables.sh: $ringlab is missing; build it: cmake --build --preset release --target ringlab" >&2; exit 2; }
mkdir -p "$out"
echo "# $(date -u +%FT%TZ) scripts/published-tables.sh $*" > "$out/commands.txt"
run() { echo "$*" >> "$out/commands.txt"; "$@"; }
# One line per mapped table: id preset algorithms lat_name lat0 bw_name bw0
plan=$("$py" - "$tables" "$mapping" <<'EOF'
import json, sys
tables = {t["id"]: t for t in json.load(open(sys.argv[1]))["tables"]}
for entry in json.load(open(sys.argv[2]))["tables"]:
    if entry["id"] not in tables:
        sys.exit(f"published-tables.sh: table {entry['id']} of {sys.argv[2]} is not in {sys.argv[1]}")
    level = entry["level"]
    print(entry["id"], entry["preset"], entry["algorithms"], level["lat"], level["lat_value"], level["bw"],
          level["bw_value"])
EOF
)
simulate() {  # PRESET MIN MAX FACTOR ALGORITHMS STEM: the nccl-tests table in STEM.txt, the report in STEM.json
  run "$ringlab" simulate --topology "$1" --emulate nccl --algo "$5" --protocol auto -b "$2" -e "$3" -f "$4" \
    --json "$6.json" --force > "$6.txt" 2>> "$(dirname "$6")/stderr.txt"
}
while read -r id preset algorithms lat_name lat0 bw_name bw0; do
  dir=$out/$id
  mkdir -p "$dir"
  sizes=$("$py" "$analysis" sizes "$tables" "$id")
  read -r min max factor small large <<< "$sizes"
  simulate "$preset" "$min" "$max" "$factor" "$algorithms" "$dir/apriori"
  span=$((large / small))
  dlat=1e-6
  bw1=$("$py" -c "print(0.8 * $bw0)")
  lat1=$("$py" -c "print($lat0 + $dlat)")
  simulate "$preset,$lat_name=$lat0,$bw_name=$bw0" "$small" "$large" "$span" "$algorithms" "$dir/probe-base"
  simulate "$preset,$lat_name=$lat1,$bw_name=$bw0" "$small" "$large" "$span" "$algorithms" "$dir/probe-lat"
  simulate "$preset,$lat_name=$lat0,$bw_name=$bw1" "$small" "$large" "$span" "$algorithms" "$dir/probe-bw"
  run "$py" "$analysis" fit "$tables" "$id" "$dir/probe-base.json" "$dir/probe-lat.json" "$dir/probe-bw.json" \
    --lat0 "$lat0" --dlat "$dlat" --bw0 "$bw0" --bw1 "$bw1" > "$dir/fit.txt"
  read -r lat_fit bw_fit < "$dir/fit.txt"
  simulate "$preset,$lat_name=${lat_fit#lat=},$bw_name=${bw_fit#bw=}" "$min" "$max" "$factor" "$algorithms" "$dir/calibrated"
  # The published rows as nccl-tests text, read back by ringlab compare (no --protocol there: its
  # errors leave NCCL's protocol costs out, unlike the summary's)
  "$py" "$analysis" text "$tables" "$id" > "$dir/measured.txt"
  run "$ringlab" compare "$dir/measured.txt" --topology "$preset" --nccl-algo "${algorithms%%,*}" \
    --json "$dir/compare.json" --force > "$dir/compare.txt" 2>> "$dir/stderr.txt"
  echo "table $id: $preset; fitted $lat_name=${lat_fit#lat=} $bw_name=${bw_fit#bw=}"
done <<< "$plan"
status=0
run "$py" "$analysis" analyse "$tables" "$mapping" "$out" > "$out/summary.txt" || status=$?
cat "$out/summary.txt"
if ((status == 3)); then
  echo "published-tables.sh: some table misses a goal (MISS in $out/summary.md)"
elif ((status != 0)); then
  exit "$status"
fi
exit "$status"
