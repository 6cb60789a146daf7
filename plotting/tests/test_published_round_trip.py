#!/usr/bin/env python3
"""scripts/published-tables.sh end to end on a table ringlab itself made: the rows are ringlab's
prediction for switch:4 at lat = 2 us, bw = 5e9 B/s, the preset given is switch:4 at its defaults
(0.5 us, 12.5e9), so the a priori prediction misses and the calibration must find 2 us and 5e9
again and then predict every row. Usage: test_published_round_trip.py RINGLAB DIR"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRUE_LAT, TRUE_BW = 2e-6, 5e9


def main():
    ringlab, directory = sys.argv[1], sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    truth = os.path.join(directory, "truth.json")
    subprocess.run([ringlab, "simulate", "--topology", f"switch:4,lat={TRUE_LAT},bw={TRUE_BW}", "--emulate", "nccl",
                    "--algo", "nccl_ring", "--protocol", "auto", "-b", "16", "-e", "4M", "-f", "4", "--quiet",
                    "--json", truth, "--force"], check=True)
    with open(truth, encoding="utf-8") as file:
        results = json.load(file)["results"]
    rows = [{"bytes": row["size_bytes"], "oop_us": row["time_us"]["p50"], "ip_us": row["time_us"]["p50"]}
            for row in results if row["placement"] == "out-of-place"]
    tables = {"tables": [{"id": 5, "collective": "all_reduce_perf", "system": {"gpu": "made by ringlab", "nranks": 4},
                          "rows": rows}]}
    mapping = {"tables": [{"id": 5, "preset": "switch:4", "algorithms": "nccl_ring",
                           "level": {"lat": "lat", "lat_value": 0.5e-6, "bw": "bw", "bw_value": 12.5e9}}]}
    for name, document in (("tables.json", tables), ("mapping.json", mapping)):
        with open(os.path.join(directory, name), "w", encoding="utf-8") as file:
            json.dump(document, file)
    out = os.path.join(directory, "out")
    done = subprocess.run(["bash", os.path.join(ROOT, "scripts", "published-tables.sh"),
                           os.path.join(directory, "tables.json"), out, os.path.dirname(os.path.dirname(ringlab))],
                          env={**os.environ, "PRESETS": os.path.join(directory, "mapping.json")},
                          capture_output=True, text=True, check=False)
    print(done.stdout + done.stderr)
    failures = []
    if done.returncode != 3:
        failures.append(f"exit {done.returncode}, want 3 (the a priori prediction misses)")
    with open(os.path.join(out, "5", "fit.txt"), encoding="utf-8") as file:
        fitted = dict(part.split("=") for part in file.readline().split())
    lat, bw = float(fitted["lat"]), float(fitted["bw"])
    if abs(lat / TRUE_LAT - 1) > 0.01 or abs(bw / TRUE_BW - 1) > 0.01:
        failures.append(f"fitted lat={lat:g} bw={bw:g}, want {TRUE_LAT:g} and {TRUE_BW:g} within 1 %")
    if "| 0.0 % | PASS |" not in done.stdout or "| MISS |" not in done.stdout:
        failures.append("want a priori MISS and calibrated 0.0 % PASS in the summary")
    for failure in failures:
        print("FAIL:", failure)
    print(f"test_published_round_trip: {'failed' if failures else f'fitted lat={lat:.3g} bw={bw:.3g}'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
