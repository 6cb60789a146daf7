#!/usr/bin/env bash
# check_escaped.sh COMMAND...: passes when COMMAND exits 0, prints no control character (other
# than newline and tab) and shows the escape "\u001b" of an ESC it was given in an input file.
set -u
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output" | LC_ALL=C tr -d '\000-\010\013-\037\177'
if [[ $status -ne 0 ]]; then echo "check_escaped: exit $status, expected 0"; exit 1; fi
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$output"; then echo "check_escaped: raw control characters in the output"; exit 1; fi
if ! grep -qF '\u001b' <<<"$output"; then echo "check_escaped: no visible \\u001b in the output"; exit 1; fi
echo "check_escaped: escaped"
