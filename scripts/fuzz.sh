#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer, ASan + UBSan) and runs every fuzz target for SECONDS
# (default 60) at once, each from its committed seed corpus fuzz/corpus/<target>/ with a fixed
# seed. First every saved finding in fuzz/regressions/<target>/ is replayed once. Writes
# build/fuzz/runs/summary.md (target, seconds, executions, crashes) and exits 1 on any crash,
# sanitizer report, leak, out-of-memory or timeout. New interesting inputs go to
# build/fuzz/runs/<target>/corpus, findings to build/fuzz/runs/<target>/artifacts/.
#   bash scripts/fuzz.sh            # CI: 60 s per target, all nine concurrently
#   bash scripts/fuzz.sh 3600       # an hour each
#   bash scripts/fuzz.sh --make-corpus   # rewrite fuzz/corpus with the project's writers
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(fuzz_topology_json fuzz_schedule_json fuzz_bench_options fuzz_cifar_reader fuzz_miniimagenet_reader
         fuzz_calibration_record fuzz_bench_report fuzz_float_option fuzz_nccl_tests_output)
seconds=${1:-60}

cmake --preset fuzz >/dev/null
if [[ $seconds == --make-corpus ]]; then
  cmake --build build/fuzz -j "$(nproc)" --target fuzz_make_corpus
  rm -rf fuzz/corpus
  build/fuzz/fuzz/fuzz_make_corpus fuzz/corpus
  exit 0
fi
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "scripts/fuzz.sh: SECONDS must be a positive integer (or --make-corpus), got '$seconds'" >&2
  exit 2
fi
cmake --build build/fuzz -j "$(nproc)" --target fuzz_all

runs=build/fuzz/runs
rm -rf "$runs"
mkdir -p "$runs"
status=0
for target in "${targets[@]}"; do
  if compgen -G "fuzz/regressions/$target/*" >/dev/null; then
    if ! build/fuzz/fuzz/$target fuzz/regressions/"$target"/* >"$runs/$target-regressions.log" 2>&1; then
      echo "fuzz: $target fails on a saved regression input; see $runs/$target-regressions.log" >&2
      status=1
    fi
  fi
done

for target in "${targets[@]}"; do
  mkdir -p "$runs/$target/corpus" "$runs/$target/artifacts"
  build/fuzz/fuzz/$target -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -seed=1 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$runs/$target/artifacts/" "$runs/$target/corpus" "fuzz/corpus/$target" \
    >"$runs/$target.log" 2>&1 &
done
wait || true

summary=$runs/summary.md
{
  echo "| target | seconds | executions | crashes found |"
  echo "|---|---|---|---|"
  for target in "${targets[@]}"; do
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$runs/$target.log" | tail -1)
    crashes=$(find "$runs/$target/artifacts" -type f | wc -l)
    echo "| $target | $seconds | ${executions:-none (did not finish)} | $crashes |"
    if [[ $crashes != 0 || -z $executions ]]; then status=1; fi
  done
} >"$summary"
cat "$summary"
if [[ $status != 0 ]]; then
  echo "fuzz: a target crashed or did not finish; the inputs are in $runs/*/artifacts/, the logs in $runs/*.log" >&2
  echo "      save each as fuzz/regressions/<target>/NAME after the fix (docs/reliability.md)" >&2
fi
exit $status
