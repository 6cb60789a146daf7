#!/usr/bin/env python3
"""How far two `ringlab calibrate` runs on the same ranks differ: did the machine change between them?

A shared VM can change speed for minutes at a time (its virtual CPUs are moved on the host), so a
bench run between two calibrations is only compared with the model when the calibration taken
just before it and the one taken just after it agree (scripts/calibrate-and-compare.sh). Only
calibration data is read, never an all-reduce.

Steps:
  1. pair the samples of both files of at least --min-bytes (the sizes a comparison covers:
     below them a transfer is latency, which does not show a change of bandwidth): ping-pong
     (rank pair, bytes), concurrent streaming (bytes: every active rank sends and receives at
     once, which shows what a lone transfer does not, e.g. two virtual CPUs that came to share
     one core) and the reduce kernel (bytes);
  2. per kind and size, the median over rank pairs of each file's median one-way time
     (ping-pong), the slowest rank's median round (concurrent) or the median time (reduce): what
     the calibration's footprint curves are built from;
  3. drift of a kind = the mean over its sizes of |after / before - 1|; print each kind's with
     the largest single differences;
  4. each file on its own: a per-CPU calibration fits its same-CPU pairs and its cross-CPU pairs
     apart (calibration.cpu_classes) and prices each class with one line, which holds when the
     pairs of a class run alike. A class whose samples fit their line with a median |residual|
     above --max-class-residual had pairs that did not (one pair of a class several times faster
     than the others), and the before/after drift does not see it when both calibrations caught
     the same state.
Exit status: 0 when every kind's drift is <= --tolerance and every class fits within
--max-class-residual, 1 otherwise, 2 on bad input (a message names the file and the field).
Usage: calibration_drift.py BEFORE.json AFTER.json [--tolerance 0.10] [--min-bytes 65536]
                            [--max-class-residual 0.25]
"""
import argparse
import json
import statistics
import sys


KINDS = ("ping-pong", "concurrent", "reduce")
WHO = {"concurrent": "all active ranks", "reduce": "rank 0"}  # the ranks of a sample without a pair


class BadInput(Exception):
    pass


def field(document, path, name):
    value = document
    for key in name.split("."):
        if not isinstance(value, dict) or key not in value:
            raise BadInput(f"{path}: missing field '{name}' (is it a topology written by ringlab calibrate?)")
        value = value[key]
    return value


def positive(value, path, name):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
        raise BadInput(f"{path}: {name} must be a number > 0, got {value!r}")
    return float(value)


def read_calibration(path):
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except OSError as error:
        raise BadInput(f"{path}: cannot read it: {error.strerror}") from error
    except json.JSONDecodeError as error:
        raise BadInput(f"{path}: not valid JSON: {error}") from error


def class_residuals(document, path):
    """{class name: median |relative residual| of its fit} of a per-CPU calibration (the entries of
    calibration.cpu_classes with pairs); {} otherwise."""
    classes = field(document, path, "calibration").get("cpu_classes", {})
    if not isinstance(classes, dict):
        raise BadInput(f"{path}: calibration.cpu_classes must be an object of CPU classes")
    residuals = {}
    for name, fitted in classes.items():
        if not isinstance(fitted, dict) or "pairs" not in fitted:
            continue  # "what", "waiting_rank_cost": not a class of pairs
        value = fitted.get("median_abs_relative_residual")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0:
            raise BadInput(f"{path}: calibration.cpu_classes.{name}.median_abs_relative_residual must be a "
                           f"number >= 0, got {value!r}")
        residuals[name] = float(value)
    return residuals


def samples_of(path, document):
    """{(what, ranks, bytes): seconds} of one calibration file."""
    samples = {}
    for i, pair in enumerate(field(document, path, "calibration.ping_pong.pairs")):
        ranks = tuple(field(pair, path, "ranks"))
        for j, sample in enumerate(field(pair, path, "samples")):
            name = f"calibration.ping_pong.pairs[{i}].samples[{j}].one_way_median_us"
            samples[("ping-pong", ranks, field(sample, path, "bytes"))] = positive(
                field(sample, path, "one_way_median_us"), path, name)
    for j, sample in enumerate(field(document, path, "calibration.concurrent.samples")):
        name = f"calibration.concurrent.samples[{j}].slowest_rank_median_us"
        samples[("concurrent", (), field(sample, path, "bytes"))] = positive(
            field(sample, path, "slowest_rank_median_us"), path, name)
    for j, sample in enumerate(field(document, path, "calibration.reduce.samples")):
        name = f"calibration.reduce.samples[{j}].median_us"
        samples[("reduce", (), field(sample, path, "bytes"))] = positive(field(sample, path, "median_us"), path, name)
    return samples


def drift(before, after, min_bytes):
    """{kind: mean over sizes of |after/before - 1| of the median over pairs}, over the samples of
    >= min_bytes both have, and the differences by key."""
    shared = sorted(key for key in set(before) & set(after) if key[2] >= min_bytes)
    differences = {key: after[key] / before[key] - 1 for key in shared}
    drifts = {}
    for kind in KINDS:
        sizes = sorted({size for what, _, size in shared if what == kind})
        if not sizes:
            raise BadInput(f"the two calibrations have no {kind} sample of >= {min_bytes} B in common "
                           "(different rank counts?)")
        changes = []
        for size in sizes:
            keys = [key for key in shared if key[0] == kind and key[2] == size]
            changes.append(statistics.median(after[k] for k in keys) / statistics.median(before[k] for k in keys) - 1)
        drifts[kind] = statistics.fmean(abs(change) for change in changes)
    return drifts, differences


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--tolerance", type=float, default=0.10,
                        help="largest drift that counts as the same machine (default 0.10)")
    parser.add_argument("--min-bytes", type=int, default=65536,
                        help="smallest sample size compared (default 65536, compare's default)")
    parser.add_argument("--max-class-residual", type=float, default=0.25,
                        help="largest median fit residual of a class of pairs that counts as one machine "
                             "(default 0.25)")
    arguments = parser.parse_args(argv)
    if not 0 < arguments.tolerance < 1:
        print(f"calibration_drift: --tolerance must lie in (0, 1), got {arguments.tolerance}", file=sys.stderr)
        return 2
    if arguments.min_bytes < 0:
        print(f"calibration_drift: --min-bytes must be >= 0, got {arguments.min_bytes}", file=sys.stderr)
        return 2
    if not arguments.max_class_residual > 0:
        print(f"calibration_drift: --max-class-residual must be > 0, got {arguments.max_class_residual}",
              file=sys.stderr)
        return 2
    try:
        documents = {path: read_calibration(path) for path in (arguments.before, arguments.after)}
        drift_by_kind, differences = drift(samples_of(arguments.before, documents[arguments.before]),
                                           samples_of(arguments.after, documents[arguments.after]), arguments.min_bytes)
        unsteady = [f"{label} {name} pairs fit with {residual:.1%}"
                    for label, path in (("before:", arguments.before), ("after:", arguments.after))
                    for name, residual in class_residuals(documents[path], path).items()
                    if residual > arguments.max_class_residual]
    except BadInput as error:
        print(f"calibration_drift: {error}", file=sys.stderr)
        return 2
    largest = sorted(differences.items(), key=lambda item: -abs(item[1]))[:3]
    described = ", ".join(f"{what} {'-'.join(map(str, ranks)) or WHO[what]} {size} B {d:+.1%}"
                          for (what, ranks, size), d in largest)
    same = all(value <= arguments.tolerance for value in drift_by_kind.values())
    by_kind = ", ".join(f"{kind} {drift_by_kind[kind]:.1%}" for kind in KINDS)
    print(f"calibration drift: {by_kind} (mean over sizes >= {arguments.min_bytes} B of the change of the "
          f"median over pairs; {'all within' if same else 'above'} {arguments.tolerance:.0%}); largest: {described}"
          + (f"; a class of pairs that did not run alike: {', '.join(unsteady)} (median |residual|, over "
             f"{arguments.max_class_residual:.0%})" if unsteady else ""))
    return 0 if same and not unsteady else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
