#!/usr/bin/env python3
"""check_type_op_gamma.py RINGLAB SOURCE_DIR WORK_DIR: simulate and compare price each (type, op)
with its own gamma (docs/simulator.md, "Gamma by type and op"), end to end through the command line.

1. A calibration record with reduce_by_type_op (tests/values/calibration_type_op.json: bfloat16/max
   8x float32/sum in cache, 3x out of cache) and reduce_by_form refitted: simulate and compare
   predict bfloat16/max slower than float32/sum, and warn about nothing.
2. A calibration written before the tables (results/calibration/2026-12-04-n2.json): bfloat16/max
   is priced as float32/sum, with one warning naming the pair and the fallback and one naming the
   operand forms priced with its gamma, however many rows.
3. A pair missing from the table is warned about; --gamma prices every pair alike, silently.
Prints what it checked; exits 1 naming the first check that failed.
"""
import json
import subprocess
import sys
from pathlib import Path


def run(*arguments):
    done = subprocess.run([str(a) for a in arguments], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"check_type_op_gamma: {' '.join(map(str, arguments))} exited {done.returncode}: {done.stderr}")
    return done


def check(condition, what):
    if not condition:
        sys.exit(f"check_type_op_gamma: FAILED: {what}")
    print(f"OK {what}")


def warnings(done):
    return [line for line in done.stderr.splitlines() if line.startswith("ringlab: warning:")]


def main():
    ringlab, source, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    typed = work / "typed.json"
    old = source / "results/calibration/2026-12-04-n2.json"
    run(ringlab, "calibrate", "--from-report", source / "tests/values/calibration_type_op.json", "--json", typed,
        "--force", "--quiet")

    def simulate(topology, datatype, op, *extra):
        out = work / f"simulate-{datatype}-{op}.json"
        done = run(ringlab, "simulate", "--topology", topology, "-b", "64M", "-e", "64M", "--algo", "ring", "-d",
                   datatype, "-o", op, "--quiet", "--json", out, "--force", *extra)
        return json.loads(out.read_text())["results"][0]["time_us"]["p50"], done

    f32, f32_run = simulate(typed, "float32", "sum")
    bf16, bf16_run = simulate(typed, "bfloat16", "max")
    check(bf16 > 1.2 * f32, f"simulate: bfloat16/max {bf16:.0f} us > 1.2 x float32/sum {f32:.0f} us on a table that says so")
    check(not warnings(f32_run) and not warnings(bf16_run), "simulate: no warning for pairs the table has")
    _, missing = simulate(typed, "int32", "prod")
    check(len(warnings(missing)) == 1 and "int32/prod (no row in its gamma_by_type_op table)" in missing.stderr,
          "simulate: one warning for a pair the table lacks")
    old_f32, _ = simulate(old, "float32", "sum")
    old_bf16, old_run = simulate(old, "bfloat16", "max")
    check(old_bf16 == old_f32, "simulate: an old calibration prices bfloat16/max as float32/sum")
    check(len(warnings(old_run)) == 2 and "no gamma for bfloat16/max" in old_run.stderr
          and "float32/sum gamma" in old_run.stderr and "in-place and out-of-place reductions" in old_run.stderr,
          "simulate: one warning naming the pair and the fallback, one naming the forms")

    sample = json.loads((source / "plotting/tests/sample-report-n2.json").read_text())
    sample["config"]["datatype"], sample["config"]["op"] = "bfloat16", "max"
    for row in sample["results"]:
        row["type"], row["redop"], row["count"] = "bfloat16", "max", row["size_bytes"] // 2
    report = work / "bf16-max-report.json"
    report.write_text(json.dumps(sample))

    def compare(topology, bench_report, *extra):
        out = work / "compare.json"
        done = run(ringlab, "compare", bench_report, "--topology", topology, "--json", out, "--force", "--quiet", *extra)
        return json.loads(out.read_text()), done

    as_f32, _ = compare(typed, source / "plotting/tests/sample-report-n2.json")
    as_bf16, bf16_compare = compare(typed, report)
    largest = max(range(len(as_f32["rows"])), key=lambda i: as_f32["rows"][i]["size_bytes"])
    predicted = [document["rows"][largest]["predicted_us"]["flow-level"] for document in (as_f32, as_bf16)]
    check(as_bf16["rows"][largest]["op"] == "max" and predicted[1] > 1.2 * predicted[0],
          f"compare: each row priced with its type and op ({predicted[1]:.0f} us > 1.2 x {predicted[0]:.0f} us)")
    check([entry["type"] + "/" + entry["op"] for entry in as_bf16["gamma_by_type_op"]] == ["bfloat16/max"],
          "compare: the gamma of each pair is in the document")
    check(not warnings(bf16_compare), "compare: no warning for pairs the table has")
    _, old_compare = compare(old, report)
    check(len(as_bf16["rows"]) > 1 and len(warnings(old_compare)) == 2 and "bfloat16/max" in old_compare.stderr,
          f"compare: one warning for the pair and one for the forms, {len(as_bf16['rows'])} rows, on an old calibration")
    given, given_compare = compare(old, report, "--gamma", "1e-10")
    check(not warnings(given_compare) and given["gamma_by_type_op"][0]["gamma_seconds_per_byte"] == 1e-10,
          "compare: --gamma prices every pair, without a warning")


if __name__ == "__main__":
    main()
