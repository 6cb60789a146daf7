#!/usr/bin/env bash
# check_disk_full.sh RINGLAB: a report that does not fit on the disk (issue 27, point 1). In a
# private mount namespace, a 16 KiB tmpfs holds an old report; `ringlab simulate --json --force`
# over it must fail naming the target and "No space left on device (the disk is full)", leave the
# old report byte for byte and no temporary. Exit 77 (skipped) where a tmpfs cannot be mounted.
set -u
ringlab=$1
if ! unshare -m true 2>/dev/null; then echo "skipped: cannot make a mount namespace (needs root)"; exit 77; fi
exec unshare -m bash -s "$ringlab" <<'INNER'
set -u
ringlab=$1
folder=$(mktemp -d)
trap 'umount "$folder" 2>/dev/null; rmdir "$folder"' EXIT
if ! mount -t tmpfs -o size=16k tmpfs "$folder" 2>/dev/null; then echo "skipped: cannot mount a tmpfs"; exit 77; fi
printf 'old report\n' > "$folder/r.json"
output=$("$ringlab" simulate --topology switch:4 -b 8 -e 64M --quiet --json "$folder/r.json" --force 2>&1)
status=$?
printf '%s\n' "$output"
fail() { echo "check_disk_full: $1"; exit 1; }
[[ $status -ne 0 ]] || fail "the command succeeded on a full disk"
grep -q "cannot write '$folder/r.json': No space left on device (the disk is full)" <<<"$output" ||
  fail "the message does not name the target and the full disk"
[[ $(cat "$folder/r.json") == "old report" ]] || fail "the old report was changed"
[[ $(ls -A "$folder") == "r.json" ]] || fail "left behind: $(ls -A "$folder")"
echo "check_disk_full: exit $status, old report untouched, nothing left behind"
INNER
