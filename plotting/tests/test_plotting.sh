#!/usr/bin/env bash
# Tests plotting/validate_report.py and plotting/ringlab_plot.py on the fixtures in this folder.
# Usage: plotting/tests/test_plotting.sh OUTDIR
# Runs the scripts with $PYTHON (default python3), which needs pandas, matplotlib and jsonschema.
# Writes plots and malformed copies of the fixtures under OUTDIR; prints "N passed, M failed".
set -euo pipefail

if (($# != 1)); then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plotting=$(dirname "$here")
py=${PYTHON:-python3}
validate=("$py" "$plotting/validate_report.py")
plot=("$py" "$plotting/ringlab_plot.py")
n4=$here/sample-report-n4.json
n2=$here/sample-report-n2.json

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/plots" "$out/single" "$out/refused" "$out/mixed" "$out/nobaseline" "$out/bad"
mkdir -p "$out/bad"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# run NAME CMD...: runs CMD, keeps its exit status in $rc and stdout+stderr in $output; never exits.
rc=0
output=
run() {
  rc=0
  output=$("$@" 2>&1) || rc=$?
}

no_traceback() {  # NAME
  if grep -q "Traceback" <<<"$output"; then fail "$1: printed a Python traceback"; echo "$output"; else pass "$1: no traceback"; fi
}

expect_ok() {  # NAME CMD...
  local name=$1; shift
  run "$@"
  if ((rc == 0)); then pass "$name"; else fail "$name (exit $rc)"; echo "$output"; fi
  no_traceback "$name"
}

# expect_refused NAME PATTERN CMD...: exit 1 and output matching the extended regex PATTERN.
expect_refused() {
  local name=$1 pattern=$2; shift 2
  run "$@"
  if ((rc == 1)); then pass "$name: exit 1"; else fail "$name: exit $rc, expected 1"; echo "$output"; fi
  if grep -Eq -- "$pattern" <<<"$output"; then
    pass "$name: message names the problem"
  else
    fail "$name: no line matching /$pattern/ in:"; echo "$output"
  fi
  no_traceback "$name"
}

# expect_files DIR STEM...: each STEM.png and STEM.svg exists, is non-empty and looks like its format.
expect_files() {
  local dir=$1; shift
  local stem file
  for stem in "$@"; do
    file=$dir/$stem.png
    if [[ -s $file ]] && [[ $(head -c 8 "$file" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then
      pass "$stem.png written"
    else
      fail "$stem.png missing, empty or not a PNG in $dir"
    fi
    file=$dir/$stem.svg
    if [[ -s $file ]] && grep -q "<svg" "$file"; then pass "$stem.svg written"; else fail "$stem.svg missing, empty or not an SVG in $dir"; fi
  done
}

expect_no_files() {  # NAME DIR
  if [[ ! -d $2 ]] || [[ -z $(ls -A "$2") ]]; then pass "$1: nothing written"; else fail "$1: files written:"; ls -A "$2"; fi
}

expect_no_temporaries() {  # DIR
  if [[ -z $(find "$1" -name '*.tmp') ]]; then pass "no temporary files left in $1"; else fail "temporary files left in $1"; fi
}

# ---- the fixtures are valid
expect_ok "validate n4 fixture" "${validate[@]}" "$n4"
grep -q "^$n4: ok\$" <<<"$output" && pass "validate n4 prints ok" || fail "validate n4 prints ok: $output"
expect_ok "validate n2 fixture" "${validate[@]}" "$n2"
grep -q "^$n2: ok\$" <<<"$output" && pass "validate n2 prints ok" || fail "validate n2 prints ok: $output"
expect_ok "validate both fixtures at once" "${validate[@]}" "$n4" "$n2"

# ---- plots of both (different N: per-report files with _nN, plus busbw_vs_ranks)
expect_ok "plot n4 and n2" "${plot[@]}" "$n4" "$n2" --out "$out/plots"
expect_files "$out/plots" busbw_vs_size_n4 latency_vs_size_n4 speedup_vs_baseline_n4 \
  busbw_vs_size_n2 latency_vs_size_n2 speedup_vs_baseline_n2 busbw_vs_ranks
expect_no_temporaries "$out/plots"

# ---- one report: plain names, no busbw_vs_ranks; in-place results
expect_ok "plot n4 alone, in-place" "${plot[@]}" "$n4" --out "$out/single" --placement in-place
expect_files "$out/single" busbw_vs_size latency_vs_size speedup_vs_baseline
[[ ! -e $out/single/busbw_vs_ranks.png ]] && pass "no busbw_vs_ranks for one report" || fail "busbw_vs_ranks for one report"

# ---- a baseline without results: speedup skipped with a note, the rest still drawn
expect_ok "plot with absent baseline" "${plot[@]}" "$n2" --out "$out/nobaseline" --baseline halving_doubling
grep -q "speedup_vs_baseline.*skipped" <<<"$output" && pass "absent baseline: note printed" || fail "absent baseline: no note: $output"
[[ ! -e $out/nobaseline/speedup_vs_baseline.png ]] && pass "absent baseline: no speedup plot" || fail "absent baseline: speedup plot written"
expect_files "$out/nobaseline" busbw_vs_size latency_vs_size

# ---- malformed copies
bad=$out/bad
size=$(wc -c <"$n4")
head -c $((size / 2)) "$n4" >"$bad/truncated.json"
"$py" - "$n4" "$bad" <<'EOF'
import json, sys
source, bad = sys.argv[1], sys.argv[2]

def variant(name, change):
    with open(source, encoding="utf-8") as file:
        report = json.load(file)
    change(report)
    with open(f"{bad}/{name}.json", "w", encoding="utf-8") as file:
        json.dump(report, file, indent=1)

variant("wrong-schema", lambda r: r.__setitem__("schema", "ringlab.bench/0"))
variant("missing-busbw", lambda r: r["results"][3].pop("busbw_gbps"))
variant("busbw-inconsistent", lambda r: r["results"][4].__setitem__("busbw_gbps", r["results"][4]["busbw_gbps"] * 1.2 + 0.001))
variant("count-mismatch", lambda r: r["results"][2].__setitem__("count", r["results"][2]["count"] + 1))
EOF

refusals=(
  "truncated|line [0-9]+, column [0-9]+: invalid JSON"
  "wrong-schema|\\\$\\.schema: .*ringlab\\.bench/1"
  "missing-busbw|\\\$\\.results\\[3\\]: missing required field 'busbw_gbps'"
  "busbw-inconsistent|\\\$\\.results\\[4\\]\\.busbw_gbps: .*inconsistent with algbw"
  "count-mismatch|\\\$\\.results\\[2\\]\\.size_bytes: .*count"
)
for entry in "${refusals[@]}"; do
  name=${entry%%|*}
  pattern="^$bad/$name\\.json: ${entry#*|}"
  expect_refused "validate $name" "$pattern" "${validate[@]}" "$bad/$name.json"
  expect_refused "plot $name" "$pattern" "${plot[@]}" "$bad/$name.json" --out "$out/refused/$name"
  expect_no_files "plot $name" "$out/refused/$name"
done

expect_refused "validate a missing file" "nonexistent\\.json: cannot read" "${validate[@]}" "$bad/nonexistent.json"

# ---- a good and a bad report together: exit 1, the good one plotted, nothing for the bad one
expect_refused "plot good + bad" "wrong-schema\\.json: refused" "${plot[@]}" "$n4" "$bad/wrong-schema.json" --out "$out/mixed"
expect_files "$out/mixed" busbw_vs_size latency_vs_size speedup_vs_baseline

echo "$passed passed, $failed failed"
((failed == 0))
