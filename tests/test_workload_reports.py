"""Checks a ringlab.replay/1 report of `ringlab replay` (measured) against one of
`ringlab simulate --workload` (predicted) for the same workload, ranks and batch: both parse,
carry the right kind, and count the same calls and bytes per collective, mode and algorithm;
the dp bytes are 4 x all parameters and the hybrid all-reduce 4 x the backbone's."""
import json
import sys


def load(path, kind):
    with open(path) as f:
        report = json.load(f)
    assert report["schema"] == "ringlab.replay/1", (path, report.get("schema"))
    assert report["kind"] == kind, (path, report["kind"])
    return report


def counts(report):
    return {(r["algorithm"], r["mode"]): r["collectives_per_iteration"] for r in report["results"] if r["available"]}


measured = load(sys.argv[1], "measured")
predicted = load(sys.argv[2], "predicted")
for key in ("workload", "global_batch", "bucket_bytes"):
    assert measured["config"][key] == predicted["config"][key], key
w = measured["workload"]
m, p = counts(measured), counts(predicted)
assert m, "no measured results"
for key, collectives in m.items():
    assert key in p, ("no prediction for", key)
    assert collectives == p[key], (key, collectives, p[key])
    total = 4 * (w["backbone_parameters"] + w["head_parameters"])
    expected = total if key[1] == "dp" else 4 * w["backbone_parameters"]
    assert collectives["allreduce"]["bytes"] == expected, (key, collectives["allreduce"])
unavailable = [(r["algorithm"], r["mode"]) for r in measured["results"] if not r["available"]]
assert ("halving_doubling", "hybrid") in unavailable, unavailable
assert measured["speedups"] and all(s["speedup"] > 0 for s in measured["speedups"])
print("reports agree:", sorted(m))
