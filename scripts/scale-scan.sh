#!/usr/bin/env bash
# Issue 33's closed-form scan: one 64 MiB float32 all-reduce prediction of every registered
# algorithm on each topology family (switch, torus2d, ring, nvswitch:8,nodes:M, dragonfly) at
# every N <= 64 the family takes, powers of two and their neighbours up to 65,536, and random N
# (bench/micro/closed_form_scan.cpp says which N and how torus2d and dragonfly are shaped). Each
# (N, algorithm) runs in a child process stopped after LIMIT seconds of CPU (default 30) and
# records its peak memory; times are CPU time. Writes OUT/closed-form-FAMILY.json, OUT/summary.csv
# and OUT/README.md with the fields scripts/results-index.py reads (command, machine, date,
# headline) and a table per family.
# Usage: bash scripts/scale-scan.sh OUT [BUILD]   (FAMILIES="torus2d ring": fewer; LIMIT=60; RANDOM_N=10; JOBS=2)
set -euo pipefail
out=${1:?usage: $0 OUT [BUILD]}
build=${2:-build/release}
scan=$build/bench/ringlab_closed_form_scan
families=${FAMILIES:-switch torus2d ring nvswitch dragonfly}
limit=${LIMIT:-30}
random_n=${RANDOM_N:-10}
jobs=${JOBS:-1}
mkdir -p "$out"
for family in $families; do  # JOBS families at a time (times are CPU time, so they do not mix)
  echo "== $family" >&2
  "$scan" --topology "$family" --random "$random_n" --uneven 0 --limit "$limit" > "$out/closed-form-$family.json" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
wait
python3 - "$out" "$limit" "$random_n" "$families" "$jobs" <<'PY'
import datetime, json, os, platform, subprocess, sys
out, limit, random_n, families, jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5]
rows = []
for family in families:
    rows += json.load(open(os.path.join(out, f"closed-form-{family}.json")))["rows"]
columns = ["topology", "nranks", "algorithm", "topology_ms", "model_ms", "unprepared_first_ms", "prepare_ms",
           "prepared_first_ms", "prepared_ms", "over_limit_seconds", "child_cpu_s", "max_rss_mib", "predicted_seconds"]
with open(os.path.join(out, "summary.csv"), "w") as f:
    f.write(",".join(columns) + "\n")
    for row in rows:
        f.write(",".join(str(row.get(c, "")) for c in columns) + "\n")
def family_of(row):
    return row["topology"].split(":")[0]
# A first prediction as `ringlab simulate` makes it: the model built, the schedule prepared, priced once.
def first_ms(row):
    if "over_limit_seconds" in row: return None
    return row["model_ms"] + row["prepare_ms"] + row["prepared_first_ms"]
algorithms = ["ring", "interval_paired", "parameter_server", "halving_doubling", "recursive_doubling"]
lines = ["| topology | N scanned | " + " | ".join(algorithms) + " | peak memory |", "|---" * (len(algorithms) + 3) + "|"]
for family in families:
    mine = [r for r in rows if family_of(r) == family]
    cells = []
    for algorithm in algorithms:
        sub = [r for r in mine if r["algorithm"] == algorithm]
        over = [r["nranks"] for r in sub if first_ms(r) is None]
        timed = [r for r in sub if first_ms(r) is not None]
        cell = "none within the limit"
        if timed:
            worst = max(timed, key=first_ms)
            cell = f"{first_ms(worst):.0f} ms (N={worst['nranks']})"
        if over:
            cell += f"; over {limit} s at {len(over)} N ({', '.join(map(str, over[:4]))}{'...' if len(over) > 4 else ''})"
        cells.append(cell)
    memory = max(r["max_rss_mib"] for r in mine)
    lines.append(f"| {family} | {len(set(r['nranks'] for r in mine))} | " + " | ".join(cells) + f" | {memory:.0f} MiB |")
cpu = "unknown"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip(); break
except OSError:
    pass
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
# The headline: the worst first prediction per family over every algorithm, and how many cells missed.
worst_by_family = []
for family in families:
    mine = [r for r in rows if family_of(r) == family]
    timed = [r for r in mine if first_ms(r) is not None]
    over = len(mine) - len(timed)
    worst = max(timed, key=first_ms) if timed else None
    worst_by_family.append((f"{family} {first_ms(worst):.0f} ms ({worst['algorithm']}, N={worst['nranks']})" if worst else family)
                           + (f", {over} over {limit} s" if over else ""))
readme = f"""# Closed-form prediction time at cluster scale (issue 33)

- **command**: `LIMIT={limit} RANDOM_N={random_n} JOBS={jobs} FAMILIES="{' '.join(families)}" bash scripts/scale-scan.sh {out}`
- **machine**: {cpu}, {os.cpu_count()} CPUs (shared with another build: every time is CPU time)
- **date**: {datetime.date.today().isoformat()} (release build, commit {commit})
- **headline**: worst first closed-form prediction of a 64 MiB float32 all-reduce: {'; '.join(worst_by_family)}

One prediction per (N, algorithm) in a child process stopped past {limit} s of CPU: build the model,
prepare the schedule, price it once (what `ringlab simulate --model closed-form` does per
algorithm), in CPU time. `summary.csv` has every column, the JSON files the raw rows. Worst first
prediction per family and algorithm (goal: <= 1 s, <= 50 ms on switch); a cell "over {limit} s"
lists the N stopped. Peak memory is the largest child's.

""" + "\n".join(lines) + "\n"
open(os.path.join(out, "README.md"), "w").write(readme)
print(readme)
PY
