#!/usr/bin/env python3
"""Runs a ringlab command with an injected fault (RINGLAB_FAULT) and checks how the job ended.

check_fault.py --fault SPEC [--status N|nonzero] [--expect REGEX ...] [--max-seconds S]
               [--report FILE [--partial-sizes B,B,...] [--unchanged]] -- COMMAND...

Passes when the command's exit status is as expected, its output (stdout + stderr) matches every
REGEX, it ended within S seconds of wall time, and the report FILE, when given, is whole JSON:
with --partial-sizes, marked "complete": false and holding exactly those message sizes; with
--unchanged, byte for byte the file that was there before the run (one is made when missing).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time


def fail(message):
    print(f"check_fault: FAIL: {message}")
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", required=True)
    parser.add_argument("--status", default="nonzero")
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--max-seconds", type=float, default=60)
    parser.add_argument("--report")
    parser.add_argument("--partial-sizes")
    parser.add_argument("--unchanged", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        fail("no command given after --")

    before = None
    if args.report and args.unchanged:
        if not os.path.exists(args.report):
            with open(args.report, "w") as file:
                json.dump({"schema": "ringlab.bench/1", "complete": True, "note": "made by check_fault.py"}, file)
        with open(args.report, "rb") as file:
            before = file.read()
    elif args.report and os.path.exists(args.report):
        os.remove(args.report)

    environment = dict(os.environ, RINGLAB_FAULT=args.fault)
    start = time.monotonic()
    finished = subprocess.run(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=args.max_seconds + 60)
    elapsed = time.monotonic() - start
    output = finished.stdout.decode(errors="replace")
    print(output)
    print(f"check_fault: exit status {finished.returncode} after {elapsed:.1f} s (limit {args.max_seconds} s)")

    if args.status == "nonzero":
        if finished.returncode == 0:
            fail("the command succeeded; the fault should have failed the job")
    elif finished.returncode != int(args.status):
        fail(f"exit status {finished.returncode}, expected {args.status}")
    if elapsed > args.max_seconds:
        fail(f"the job took {elapsed:.1f} s, more than {args.max_seconds} s")
    for pattern in args.expect:
        if not re.search(pattern, output):
            fail(f"output does not match: {pattern}")

    if args.report:
        leftovers = [name for name in os.listdir(os.path.dirname(os.path.abspath(args.report)))
                     if name.startswith(os.path.basename(args.report) + ".tmp")]
        if not os.path.exists(args.report):
            fail(f"report {args.report} is missing")
        with open(args.report, "rb") as file:
            content = file.read()
        if before is not None and content != before:
            fail(f"report {args.report} changed; the fault came before any size was measured")
        try:
            report = json.loads(content)
        except ValueError as error:
            fail(f"report {args.report} is not whole JSON: {error}")
        if args.partial_sizes is not None:
            if report.get("complete") is not False:
                fail(f'report says "complete": {report.get("complete")}, expected false')
            sizes = sorted({row["size_bytes"] for row in report["results"]})
            expected = sorted(int(size) for size in args.partial_sizes.split(",") if size)
            if sizes != expected:
                fail(f"report holds sizes {sizes}, expected {expected}")
        print(f"check_fault: report {args.report} is whole JSON, complete={report.get('complete')}"
              f"{'; temporary files left: ' + str(leftovers) if leftovers else ''}")
    print("check_fault: PASS")


if __name__ == "__main__":
    main()
