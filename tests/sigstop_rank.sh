#!/usr/bin/env bash
# sigstop_rank.sh --mpiexec M --ringlab R --work DIR [--ranks N] [--delay S] [--timeout T] [--max-seconds L]
#
# Starts `M -n N R bench ... --timeout T` in the background, waits until the rank processes
# exist, sleeps S seconds (default 0.1: usually MPI start-up or the set-up), stops one rank with
# SIGSTOP, and passes when the job ends with a non-zero status within L seconds (default T + 10)
# and the report is whole JSON (the earlier file, or the sizes measured before the stop). Whatever is left afterwards (the stopped
# rank included) is continued and killed, by process id, on every exit.
set -u
mpiexec="" ringlab="" work="" ranks=3 delay=0.1 timeout=3 max_seconds=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --mpiexec) mpiexec=$2; shift 2 ;;
    --ringlab) ringlab=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --max-seconds) max_seconds=$2; shift 2 ;;
    *) echo "sigstop_rank: unknown argument $1"; exit 2 ;;
  esac
done
[[ -n $mpiexec && -n $ringlab && -n $work ]] || { echo "sigstop_rank: --mpiexec, --ringlab and --work are required"; exit 2; }
[[ -n $max_seconds ]] || max_seconds=$((timeout + 10))

# A marker no other job's command line has: the report's file name.
marker="sigstop-$$-$RANDOM"
report="$work/$marker.json"
log="$work/$marker.log"
echo '{"schema": "ringlab.bench/1", "note": "made by sigstop_rank.sh"}' >"$report"

rank_pids() { pgrep -f "^$ringlab bench .*$marker" || true; }
job_pid=""
stopped=""
cleanup() {
  # Only the processes of this job: the stopped rank, any rank left, the launcher.
  for pid in $stopped $(rank_pids) $job_pid; do
    kill -CONT "$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
  done
  rm -f "$report"
}
trap cleanup EXIT

start=$(date +%s.%N)
"$mpiexec" -n "$ranks" "$ringlab" bench -b 8 -e 1M -f 4 -n 2 -w 1 --force --timeout "$timeout" --json "$report" \
  >"$log" 2>&1 &
job_pid=$!

# Wait for the ranks to appear (mpiexec starts them), then the delay.
pids=""
for _ in $(seq 500); do
  pids=$(rank_pids)
  [[ $(wc -w <<<"$pids") -ge $ranks ]] && break
  sleep 0.01
done
[[ -n $pids ]] || { cat "$log"; echo "sigstop_rank: FAIL: no rank process appeared"; exit 1; }
sleep "$delay"
# The last rank found (not always rank 0, which writes the report).
victim=$(tail -n 1 <<<"$(rank_pids)")
[[ -n $victim ]] || { cat "$log"; echo "sigstop_rank: FAIL: the ranks ended before the stop"; exit 1; }
kill -STOP "$victim" && stopped=$victim
stop_at=$(date +%s.%N)
echo "sigstop_rank: stopped pid $victim $(awk -v a="$start" -v b="$stop_at" 'BEGIN{printf "%.2f", b-a}') s after launch"

# Wait for the job, at most max_seconds from launch (+ 5 s to see it end at all).
status=""
while true; do
  if ! kill -0 "$job_pid" 2>/dev/null; then wait "$job_pid"; status=$?; break; fi
  now=$(date +%s.%N)
  if awk -v a="$start" -v b="$now" -v l="$max_seconds" 'BEGIN{exit !(b-a > l+5)}'; then break; fi
  sleep 0.05
done
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')
cat "$log"
rm -f "$log"
if [[ -z $status ]]; then echo "sigstop_rank: FAIL: the job still runs after $elapsed s (a hang)"; exit 1; fi
echo "sigstop_rank: exit status $status after $elapsed s (limit $max_seconds s)"
[[ $status -ne 0 ]] || { echo "sigstop_rank: FAIL: the job succeeded with a stopped rank"; exit 1; }
awk -v e="$elapsed" -v l="$max_seconds" 'BEGIN{exit !(e <= l)}' || { echo "sigstop_rank: FAIL: took more than $max_seconds s"; exit 1; }
# The report may hold sizes measured before the stop, but it must be whole JSON.
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$report" || { echo "sigstop_rank: FAIL: report is not whole JSON"; exit 1; }
echo "sigstop_rank: passed"
