#!/usr/bin/env bash
# count_error_lines.sh COUNT REGEX COMMAND...: passes when COMMAND exits non-zero (not by a
# signal) and exactly COUNT lines of its output (stdout and stderr) match REGEX (grep -E). Used to
# check that a multi-rank job prints an error once, not once per rank (tests/newcomer.cmake).
set -u
expected=$1
regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [[ $status -eq 0 ]]; then echo "count_error_lines: command succeeded, expected a failure"; exit 1; fi
if [[ $status -ge 128 ]]; then echo "count_error_lines: command died with signal $((status - 128))"; exit 1; fi
found=$(grep -Ec -- "$regex" <<<"$output")
if [[ $found -ne $expected ]]; then
  echo "count_error_lines: $found lines match '$regex', expected $expected"
  exit 1
fi
echo "count_error_lines: exit $status, $found line(s) matching"
