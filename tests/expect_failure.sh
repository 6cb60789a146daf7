#!/usr/bin/env bash
# expect_failure.sh REGEX COMMAND...: passes when COMMAND exits non-zero (not by a signal) and its
# output matches REGEX (grep -E). Used for bad-input tests of the command-line tool.
set -u
regex=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [[ $status -eq 0 ]]; then echo "expect_failure: command succeeded, expected a failure"; exit 1; fi
if [[ $status -ge 128 ]]; then echo "expect_failure: command died with signal $((status - 128))"; exit 1; fi
if ! grep -Eq -- "$regex" <<<"$output"; then echo "expect_failure: output does not match: $regex"; exit 1; fi
echo "expect_failure: exit $status with the expected message"
