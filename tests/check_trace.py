#!/usr/bin/env python3
"""Checks ringlab's Trace Event Format files (docs/bench.md#trace-files, docs/simulator.md).

  check_trace.py valid TRACE...          every event against tests/trace_event.schema.json, then:
                                         B/E balanced per thread, X durations >= 0, timestamps
                                         monotone per track (thread, or counter name), complete
                                         spans on a thread nested or disjoint, every process and
                                         thread named by a metadata event
  check_trace.py same-run MEASURED SIMULATED
                                         the simulated call and the measured call of the same name
                                         ("ALGO BYTES B PLACEMENT") have the same ranks, the same
                                         steps per rank and the same send/recv spans inside each
                                         step (reduce spans are left out: the simulator has none)
  check_trace.py distinct-calls TRACE    no two traced calls of a rank share a name (bench -d all /
                                         -o all: the names carry the type and op); prints the
                                         number of calls per rank and the first name

Prints "trace ok" / "same run ok" / "distinct calls ok", or what is wrong and exits 1.
"""
import json
import os
import sys
from collections import defaultdict

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trace_event.schema.json")
TOLERANCE_US = 1e-3  # rounding of microsecond doubles


class TraceError(Exception):
    pass


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def check_valid(document, path):
    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(document), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        raise TraceError(f"{path}: {len(errors)} schema error(s), first at {list(error.path)}: {error.message}")
    events = document["traceEvents"]
    named_processes = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    named_threads = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    last_ts = {}
    open_spans = defaultdict(list)  # (pid, tid) -> stack of open B names / X ends
    x_stack = defaultdict(list)
    for index, event in enumerate(events):
        ph = event["ph"]
        if ph == "M":
            continue
        if event["pid"] not in named_processes:
            raise TraceError(f"{path}: event {index} ({event.get('name')}) is in process {event['pid']}, which no process_name names")
        track = (event["pid"], "counter", event["name"]) if ph == "C" else (event["pid"], event["tid"])
        if ph != "C" and track not in named_threads:
            raise TraceError(f"{path}: event {index} ({event.get('name')}) is on thread {track}, which no thread_name names")
        if event["ts"] + TOLERANCE_US < last_ts.get(track, float("-inf")):
            raise TraceError(f"{path}: event {index} ({event.get('name')}) at ts {event['ts']} goes back in time on track {track}")
        last_ts[track] = event["ts"]
        if ph == "B":
            open_spans[track].append(event["name"])
        elif ph == "E":
            if not open_spans[track]:
                raise TraceError(f"{path}: event {index} ends a span on {track} that was never begun")
            open_spans[track].pop()
        elif ph == "X":
            if event["dur"] < 0:
                raise TraceError(f"{path}: event {index} ({event['name']}) has a negative duration")
            stack = x_stack[track]
            while stack and stack[-1] <= event["ts"] + TOLERANCE_US:
                stack.pop()
            end = event["ts"] + event["dur"]
            if stack and end > stack[-1] + TOLERANCE_US:
                raise TraceError(f"{path}: event {index} ({event['name']}) on {track} overlaps an enclosing span without nesting in it")
            stack.append(end)
    unbalanced = {track: names for track, names in open_spans.items() if names}
    if unbalanced:
        raise TraceError(f"{path}: spans begun and never ended: {unbalanced}")
    if not any(e["ph"] in "XB" for e in events):
        raise TraceError(f"{path}: no spans")


def call_structure(document, call_name, path):
    """{rank: [(step, sorted child span names)]} of the call named call_name."""
    events = [e for e in document["traceEvents"] if e["ph"] == "X"]
    calls = {e["pid"]: e for e in events if e["tid"] == 0 and e["name"] == call_name}
    if not calls:
        names = sorted({e["name"] for e in events if e["tid"] == 0 and not e["name"].startswith("step ")})
        raise TraceError(f"{path}: no call named '{call_name}' (calls: {names})")

    def inside(inner, outer):
        return inner["ts"] + TOLERANCE_US >= outer["ts"] and \
            inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + TOLERANCE_US

    structure = {}
    for rank, call in sorted(calls.items()):
        steps = [e for e in events if e["pid"] == rank and e["tid"] == 0 and e["name"].startswith("step ") and inside(e, call)]
        children = [e for e in events if e["pid"] == rank and e["tid"] >= 2 and inside(e, call)]
        rank_steps = []
        for step in steps:
            number = step["args"]["step"]
            mine = [c for c in children if c["args"]["step"] == number]
            for child in mine:
                if not inside(child, step):
                    raise TraceError(f"{path}: rank {rank}: '{child['name']}' of step {number} is not inside the step's span")
            rank_steps.append((number, sorted(c["name"] for c in mine)))
        structure[rank] = rank_steps
    return structure


def check_distinct_calls(document, path):
    """(calls per rank, the first call's name); a name two calls of one rank share is an error."""
    per_rank = defaultdict(list)
    for event in document["traceEvents"]:
        if event["ph"] == "X" and event["tid"] == 0 and not event["name"].startswith("step "):
            per_rank[event["pid"]].append(event["name"])
    if not per_rank:
        raise TraceError(f"{path}: no traced calls")
    counts = set()
    for rank, names in sorted(per_rank.items()):
        clashes = sorted(name for name in set(names) if names.count(name) > 1)
        if clashes:
            raise TraceError(f"{path}: rank {rank}: {len(clashes)} call name(s) used more than once, "
                             f"first '{clashes[0]}' ({names.count(clashes[0])} times)")
        counts.add(len(names))
    if len(counts) != 1:
        raise TraceError(f"{path}: the ranks traced different numbers of calls: {sorted(counts)}")
    return counts.pop(), per_rank[min(per_rank)][0]


def simulated_call_name(document, path):
    names = {e["name"] for e in document["traceEvents"] if e["ph"] == "X" and e["tid"] == 0 and not e["name"].startswith("step ")}
    if len(names) != 1:
        raise TraceError(f"{path}: expected one simulated call, found {sorted(names)}")
    return names.pop()


def check_same_run(measured, simulated, measured_path, simulated_path):
    name = simulated_call_name(simulated, simulated_path)
    want = call_structure(simulated, name, simulated_path)
    got = call_structure(measured, name, measured_path)
    if sorted(got) != sorted(want):
        raise TraceError(f"'{name}': measured ranks {sorted(got)} but simulated ranks {sorted(want)}")
    for rank in want:
        if got[rank] != want[rank]:
            raise TraceError(f"'{name}' rank {rank}: measured steps and spans {got[rank]} but simulated {want[rank]}")
    return name


def perfetto_note():
    try:
        import perfetto  # noqa: F401  (its trace processor fetches a binary on first use)
    except ImportError:
        return "perfetto package not installed: checked with the schema and the structure checks only"
    return "perfetto package present but not used: its trace processor downloads a binary, which offline machines cannot"


def main(argv):
    if len(argv) >= 3 and argv[1] == "valid":
        for path in argv[2:]:
            check_valid(load(path), path)
        print(perfetto_note())
        print("trace ok")
        return 0
    if len(argv) == 4 and argv[1] == "same-run":
        measured, simulated = load(argv[2]), load(argv[3])
        check_valid(measured, argv[2])
        check_valid(simulated, argv[3])
        name = check_same_run(measured, simulated, argv[2], argv[3])
        print(f"same run ok: '{name}'")
        return 0
    if len(argv) == 3 and argv[1] == "distinct-calls":
        document = load(argv[2])
        check_valid(document, argv[2])
        count, first = check_distinct_calls(document, argv[2])
        print(f"distinct calls ok: {count} calls per rank, first '{first}'")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except TraceError as error:
        print(f"check_trace: {error}", file=sys.stderr)
        sys.exit(1)
