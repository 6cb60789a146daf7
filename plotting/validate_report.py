#!/usr/bin/env python3
"""Validate ringlab.bench/1 reports (the JSON that `ringlab bench` writes).

Usage: plotting/validate_report.py REPORT...

Each REPORT is checked against plotting/ringlab.bench.schema.json and then against the rules a
schema cannot express (see docs/bench-report-format.md). Prints "REPORT: ok" on stdout for a good
file and one "REPORT: <json path>: <what is wrong>" line on stderr per problem otherwise.
Exit status: 0 when every report is good, 1 when any is not, 2 on a usage error or when the schema
itself cannot be loaded.

ringlab_plot.py imports this module: load_report(), check_report() and validate_file() are its API.
"""

import json
import math
import os
import re
import sys
from datetime import datetime

SCHEMA_STRING = "ringlab.bench/1"
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ringlab.bench.schema.json")

# Bytes per element of each datatype name.
TYPE_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "int64": 8}

BUSBW_REL_TOL = 1e-6   # busbw against algbw * 2(N-1)/N
ALGBW_REL_TOL = 1e-3   # algbw against size_bytes / time_us.avg (times are often printed rounded)
ORDER_REL_TOL = 1e-9   # min <= p50 <= p99 <= max

MAX_PROBLEMS_SHOWN = 50  # per report, by main(); the API returns them all


class SchemaUnavailable(Exception):
    """The schema file or the jsonschema package is missing or broken (not the report's fault)."""


_validator = None


def _schema_validator():
    global _validator
    if _validator is None:
        try:
            import jsonschema
        except ImportError as error:
            raise SchemaUnavailable(f"the jsonschema package is missing ({error}); "
                                    "install it with: apt-get install python3-jsonschema")
        try:
            with open(SCHEMA_PATH, encoding="utf-8") as file:
                schema = json.load(file)
            validator_class = jsonschema.validators.validator_for(schema)
            validator_class.check_schema(schema)
        except (OSError, ValueError, jsonschema.exceptions.SchemaError) as error:
            raise SchemaUnavailable(f"cannot load the schema {SCHEMA_PATH}: {error}")
        _validator = validator_class(schema)
    return _validator


def json_path(parts):
    """['results', 3, 'time_us'] -> '$.results[3].time_us'."""
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}"
        else:
            text += "[" + json.dumps(part) + "]"
    return text


def _json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value, limit=60):
    if isinstance(value, (dict, list)):
        return f"an {_json_type(value)}"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class _NotJson(ValueError):
    """Text that Python's json accepts but JSON does not; pattern finds it for the line number."""

    def __init__(self, message, pattern, occurrence=1):
        super().__init__(message)
        self.pattern = pattern
        self.occurrence = occurrence


def _reject_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise _NotJson(f"duplicate key {json.dumps(key)}", re.escape(json.dumps(key)) + r"\s*:", 2)
        result[key] = value
    return result


def _reject_constant(name):
    raise _NotJson(f"{name} is not valid JSON (use a number or null)", r"(?<![\w\"])-?" + re.escape(name) + r"\b")


def _locate(text, error):
    """'line L, column C: ' of the error's text (a best guess), or '' when it isn't found."""
    matches = list(re.finditer(error.pattern, text))
    if len(matches) < error.occurrence:
        return ""
    start = matches[error.occurrence - 1].start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return f"line {line}, column {column}: "


def load_report(path):
    """Read and parse one report. Returns (report, problems); report is None when it can't be parsed.

    Problems are strings without the file name ("line 3, column 7: invalid JSON: ...").
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        return None, [f"cannot read the file: {error.strerror or error}"]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [f"byte {error.start}: not UTF-8 text ({error.reason})"]
    if not text.strip():
        return None, ["line 1, column 1: invalid JSON: the file is empty"]
    try:
        report = json.loads(text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        what = error.msg
        if what.startswith("Unterminated string"):  # strict json: only the end of the file ends it so
            what = "unterminated string starting here (the file ends inside it: truncated?)"
        elif error.pos >= len(text.rstrip()):
            what += " (unexpected end of file: truncated?)"
        return None, [f"line {error.lineno}, column {error.colno}: invalid JSON: {what}"]
    except _NotJson as error:  # duplicate key, NaN/Infinity: json gives no position for these
        return None, [f"{_locate(text, error)}invalid JSON: {error}"]
    except RecursionError:
        return None, ["invalid JSON: nested too deeply"]
    return report, []


def _schema_problem(error):
    """One jsonschema ValidationError -> 'json path: message' in plain words."""
    path = list(error.absolute_path)
    kind = error.validator
    instance = error.instance
    if kind == "required":
        present = instance if isinstance(instance, dict) else {}
        missing = [name for name in error.validator_value if name not in present]
        names = ", ".join(f"'{name}'" for name in missing)
        return f"{json_path(path)}: missing required field{'s' if len(missing) > 1 else ''} {names}"
    if kind == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(name for name in instance if name not in allowed)
        names = ", ".join(f"'{name}'" for name in extra)
        return f"{json_path(path)}: unexpected field{'s' if len(extra) > 1 else ''} {names} (not in ringlab.bench/1)"
    if kind == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        got = _json_type(instance)
        shown = "" if got in ("object", "array", "null") else " " + _short(instance)
        return f"{json_path(path)}: expected {expected}, got {got}{shown}"
    if kind == "enum":
        choices = ", ".join(str(choice) for choice in error.validator_value)
        return f"{json_path(path)}: {_short(instance)} is not one of: {choices}"
    if kind == "const":
        return f"{json_path(path)}: is {_short(instance)}, must be {json.dumps(error.validator_value)}"
    if kind in ("minimum", "exclusiveMinimum"):
        return f"{json_path(path)}: {_short(instance)} is below the minimum {error.validator_value}"
    if kind == "pattern":
        if path == ["created"]:
            return f"{json_path(path)}: {_short(instance)} is not a UTC ISO 8601 time like 2026-12-02T14:40:00Z"
        return f"{json_path(path)}: {_short(instance)} does not match {error.validator_value}"
    if kind == "minItems":
        return f"{json_path(path)}: must have at least {error.validator_value} item(s)"
    if kind == "uniqueItems":
        return f"{json_path(path)}: items must be unique"
    if kind == "minLength":
        return f"{json_path(path)}: must not be empty"
    return f"{json_path(path)}: {error.message}"


def _close(actual, expected, rel_tol):
    return math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=1e-12)


def _semantic_problems(report):
    """Checks the schema cannot express. Assumes the report already passed the schema."""
    problems = []
    config = report["config"]
    nranks = config["nranks"]

    try:
        datetime.fromisoformat(report["created"].replace("Z", "+00:00"))
    except ValueError as error:
        problems.append(f"$.created: {_short(report['created'])} is not a valid time ({error})")

    if config["minbytes"] > config["maxbytes"]:
        problems.append(f"$.config.minbytes: {config['minbytes']} is larger than maxbytes {config['maxbytes']}")

    for config_key, list_key in (("datatype", "datatypes"), ("op", "ops")):
        if config[config_key] == "all" and list_key not in config:
            problems.append(f"$.config.{list_key}: missing, but config.{config_key} is \"all\" (bench -d all / -o all "
                            f"list what they ran there)")

    algorithms = config["algorithms"]
    seen = {}
    for index, row in enumerate(report["results"]):
        where = ["results", index]

        def problem(field, message):
            problems.append(f"{json_path(where + ([field] if field else []))}: {message}")

        if row["algorithm"] not in algorithms:
            problem("algorithm", f"{_short(row['algorithm'])} is not in config.algorithms ({', '.join(algorithms)})")
        for field, config_key, list_key in (("type", "datatype", "datatypes"), ("redop", "op", "ops")):
            if config[config_key] == "all":  # bench -d all / -o all: the row's value is one of the list
                if row[field] not in config.get(list_key, []):
                    problem(field, f"{_short(row[field])} is not in config.{list_key}")
            elif row[field] != config[config_key]:
                problem(field, f"{_short(row[field])} differs from config.{config_key} {_short(config[config_key])}")

        key = (row["algorithm"], row["type"], row["redop"], row["size_bytes"], row["placement"])
        if key in seen:
            problem(None, f"duplicate result: {row['algorithm']}, {row['type']}, {row['redop']}, {row['size_bytes']} B, "
                          f"{row['placement']} already at $.results[{seen[key]}]")
        else:
            seen[key] = index

        element = TYPE_SIZES[row["type"]]
        if row["count"] * element != row["size_bytes"]:
            problem("size_bytes", f"{row['size_bytes']} is not count * sizeof({row['type']}) = "
                                  f"{row['count']} * {element} = {row['count'] * element}")

        time = row["time_us"]
        order = ["min", "p50", "p99", "max"]
        for lower, upper in zip(order, order[1:]):
            if time[lower] > time[upper] and not _close(time[lower], time[upper], ORDER_REL_TOL):
                problem("time_us", f"{lower} {time[lower]} is larger than {upper} {time[upper]} "
                                   "(expected min <= p50 <= p99 <= max)")
        # Reports with loop_avg (issue 28 on) take avg from the same per-call samples as min..max, so it lies
        # between them; before, avg was the loop / iters (nccl-tests style, now loop_avg), which loop overhead
        # and ranks' drift put outside [min, max], so older reports are not held to it.
        if "loop_avg" in time:
            if not (time["min"] <= time["avg"] <= time["max"]) and not (
                    _close(time["min"], time["avg"], ORDER_REL_TOL) or _close(time["avg"], time["max"], ORDER_REL_TOL)):
                problem("time_us.avg", f"{time['avg']} is outside [min, max] = [{time['min']}, {time['max']}] "
                                       "(avg is the mean of the same samples)")
        if "p50_ci95_low" in time:
            low, high = time["p50_ci95_low"], time["p50_ci95_high"]
            if not (low <= time["p50"] <= high):
                problem("time_us", f"p50 {time['p50']} is outside its interval [{low}, {high}] "
                                   "(expected p50_ci95_low <= p50 <= p50_ci95_high)")
        skew = row.get("rank_skew_us")
        if skew is not None and not (skew["min"] <= skew["p50"] <= skew["max"]):
            problem("rank_skew_us", f"min {skew['min']}, p50 {skew['p50']}, max {skew['max']} are not in order")
        converge = config.get("converge")
        if "converged" in row and (row["converged"] is None) != (converge is None):
            problem("converged", f"{_short(row['converged'])} but config.converge is {_short(converge)} "
                                 "(expected true/false with --converge, null without)")

        size = row["size_bytes"]
        algbw = row["algbw_gbps"]
        if size == 0:
            if algbw != 0:
                problem("algbw_gbps", f"{algbw} for a 0-byte message, expected 0")
        elif time["avg"] == 0:
            problem("time_us.avg", f"is 0 for a {size}-byte message: algbw would be infinite")
        else:
            expected = size / (time["avg"] * 1e-6) / 1e9
            if not _close(algbw, expected, ALGBW_REL_TOL):
                problem("algbw_gbps", f"{algbw} does not match size_bytes / time_us.avg = "
                                      f"{size} B / {time['avg']} us = {expected:.6g} GB/s")

        expected_bus = algbw * 2 * (nranks - 1) / nranks
        if not _close(row["busbw_gbps"], expected_bus, BUSBW_REL_TOL):
            problem("busbw_gbps", f"{row['busbw_gbps']} is inconsistent with algbw_gbps: expected "
                                  f"algbw * 2(N-1)/N = {algbw} * {2 * (nranks - 1)}/{nranks} = {expected_bus:.9g}")

        if config["check"] and row["wrong"] < 0:
            problem("wrong", f"{row['wrong']} but config.check is true (expected a count >= 0)")
        if not config["check"] and row["wrong"] != -1:
            problem("wrong", f"{row['wrong']} but config.check is false (expected -1)")
    return problems


def check_report(report):
    """All problems of a parsed report, as 'json path: message' strings (empty list: the report is good).

    Raises SchemaUnavailable when the schema or jsonschema can't be loaded.
    """
    if isinstance(report, dict) and "schema" in report and report["schema"] != SCHEMA_STRING:
        # Another format or version: its other fields would only add noise.
        return [f"$.schema: {_short(report['schema'])} is not a supported schema (expected \"{SCHEMA_STRING}\")"]
    validator = _schema_validator()
    errors = sorted(validator.iter_errors(report), key=lambda e: ([str(p) for p in e.absolute_path], e.validator))
    problems = []
    for error in errors:
        text = _schema_problem(error)
        if text not in problems:
            problems.append(text)
    if problems:
        return problems
    return _semantic_problems(report)


def validate_file(path):
    """Load and check one report. Returns (report, problems); the report is usable only if problems is empty."""
    report, problems = load_report(path)
    if problems:
        return None, problems
    return report, check_report(report)


def print_problems(path, problems, stream=sys.stderr, limit=MAX_PROBLEMS_SHOWN):
    for text in problems[:limit]:
        print(f"{path}: {text}", file=stream)
    if len(problems) > limit:
        print(f"{path}: ... and {len(problems) - limit} more problems", file=stream)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    status = 0
    for path in argv:
        try:
            report, problems = validate_file(path)
        except SchemaUnavailable as error:
            print(f"validate_report.py: {error}", file=sys.stderr)
            return 2
        if problems:
            print_problems(path, problems)
            status = 1
        elif isinstance(report, dict) and report.get("complete") is False:
            # A run that ended early keeps what it measured (docs/reliability.md): valid, but said.
            sizes = sorted({row["size_bytes"] for row in report["results"]})
            print(f"{path}: ok (partial: \"complete\" is false; the run ended early after "
                  f"{len(sizes)} size(s){', up to ' + str(sizes[-1]) + ' B' if sizes else ''})")
        else:
            print(f"{path}: ok")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
