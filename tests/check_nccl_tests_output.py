#!/usr/bin/env python3
"""Checks `ringlab bench` output meant for tools made for nccl-tests, the way such tools read it.

  check_nccl_tests_output.py text TABLE.txt --algorithms ring,interval_paired --lines N
      --format nccl-tests output. Written from nccl-tests' documented all_reduce_perf output, not from
      ringlab's code: a data line is any line not starting with '#'; split at whitespace it has 13
      fields, size count type redop root, then time algbw busbw #wrong out-of-place and in-place;
      each field ends in the column where its title ends (nccl-tests right-aligns every column;
      its N/A ends one column early, as nccl-tests prints it, so lines with N/A are split only);
      each table ends with "# Out of bounds values : N OK" and "# Avg bus bandwidth    : X", X the
      mean of the table's busbw figures. ringlab adds "# Algorithm: NAME" above each table.
  check_nccl_tests_output.py json FILE.json --algorithms ... --lines N
      -J output: nccl-tests' JSON (version 3) fields and value forms.
  check_nccl_tests_output.py csv FILE.csv --rows N
      --csv output: the header, N rows, one per (algorithm, type, op, size, placement), numbers parse.
  check_nccl_tests_output.py report FILE.json --types N --ops N
      a ringlab.bench/1 report of -d all / -o all: config says "all" with the lists, rows carry them.

Prints "check_nccl_tests_output: OK ..." and exits 0, or lists every problem and exits 1.
"""
import argparse
import csv
import json
import re
import sys

# Bytes per element of nccl-tests' type names (the `type` column).
NCCL_TYPE_SIZES = {"float": 4, "double": 8, "half": 2, "bfloat16": 2, "int32": 4, "int64": 8}
RINGLAB_TYPE_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int32": 4, "int64": 8}
TITLES = ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
          "time", "algbw", "busbw", "#wrong"]


def field_ends(line):
    """The index just past each whitespace-separated field."""
    return [match.end() for match in re.finditer(r"\S+", line)]


def check_text(path, algorithms, lines_per_table):
    problems = []
    text = open(path, encoding="utf-8").read().splitlines()
    tables = []  # [algorithm, data lines, footer values]
    title_ends = None
    for number, line in enumerate(text, 1):
        where = f"{path}:{number}"
        if line.startswith("# Algorithm: "):
            tables.append({"algorithm": line[len("# Algorithm: "):], "lines": [], "footer": {}})
            continue
        if line.startswith("#"):
            fields = line[1:].split()
            if fields == TITLES:
                # Titles are offset by the leading '#'; the data line's fields end where the titles do.
                title_ends = field_ends(line)[1:]
            match = re.fullmatch(r"# (Out of bounds values|Avg bus bandwidth)\s*: (\S+)\s?(\S*)\s*", line)
            if match and tables:
                tables[-1]["footer"][match.group(1)] = (match.group(2), match.group(3))
            continue
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 13:
            problems.append(f"{where}: {len(fields)} fields, expected 13 (size count type redop root and "
                            f"time algbw busbw #wrong twice): {line!r}")
            continue
        if not tables:
            problems.append(f"{where}: data line before any '# Algorithm:' line")
            continue
        if title_ends is None:
            problems.append(f"{where}: data line before the column titles")
        elif "N/A" not in fields and field_ends(line) != title_ends:
            problems.append(f"{where}: fields end at columns {field_ends(line)}, titles at {title_ends}")
        try:
            size, count = int(fields[0]), int(fields[1])
            root = int(fields[4])
            figures = [float(value) for value in fields[5:8] + fields[9:12]]
            wrong = [value for value in (fields[8], fields[12])]
        except ValueError as error:
            problems.append(f"{where}: a number does not parse ({error}): {line!r}")
            continue
        if fields[2] not in NCCL_TYPE_SIZES:
            problems.append(f"{where}: type {fields[2]!r} is not one of nccl-tests' names {sorted(NCCL_TYPE_SIZES)}")
        elif count * NCCL_TYPE_SIZES[fields[2]] != size:
            problems.append(f"{where}: size {size} is not count {count} x {NCCL_TYPE_SIZES[fields[2]]}")
        if fields[3] not in ("sum", "prod", "min", "max", "avg"):
            problems.append(f"{where}: redop {fields[3]!r}")
        if root != -1:
            problems.append(f"{where}: root {root}, all-reduce's is -1")
        if any(value < 0 for value in figures):
            problems.append(f"{where}: negative time or bandwidth")
        for value in wrong:
            if value != "N/A" and float(value) != 0:
                problems.append(f"{where}: #wrong {value}")
        tables[-1]["lines"].append({"busbw": [figures[2], figures[5]]})

    names = [table["algorithm"] for table in tables]
    if names != algorithms:
        problems.append(f"{path}: tables for {names}, expected {algorithms}")
    for table in tables:
        name = table["algorithm"]
        if len(table["lines"]) != lines_per_table:
            problems.append(f"{path}: {name}: {len(table['lines'])} lines, expected {lines_per_table}")
        footer = table["footer"]
        if footer.get("Out of bounds values") != ("0", "OK"):
            problems.append(f"{path}: {name}: '# Out of bounds values : 0 OK' missing (found {footer.get('Out of bounds values')})")
        if "Avg bus bandwidth" not in footer:
            problems.append(f"{path}: {name}: '# Avg bus bandwidth' line missing")
            continue
        busbw = [value for line in table["lines"] for value in line["busbw"]]
        average = float(footer["Avg bus bandwidth"][0])
        mean = sum(busbw) / len(busbw) if busbw else 0.0
        if abs(average - mean) > 0.006 + 1e-3 * mean:  # the table shows busbw to 2 decimals
            problems.append(f"{path}: {name}: Avg bus bandwidth {average}, but the table's busbw average {mean:.4f}")
        if footer["Avg bus bandwidth"][1]:
            problems.append(f"{path}: {name}: text after the bandwidth: {footer['Avg bus bandwidth'][1]!r} "
                            "(nccl-tests prints the figure alone there)")
    return problems, f"{len(tables)} tables of {lines_per_table} lines"


def check_json(path, algorithms, lines_per_table):
    problems = []
    document = json.load(open(path, encoding="utf-8"))

    def need(obj, key, kinds, where):
        if key not in obj:
            problems.append(f"{path}: {where}.{key} missing")
            return None
        if not isinstance(obj[key], kinds) or isinstance(obj[key], bool):
            problems.append(f"{path}: {where}.{key} is {type(obj[key]).__name__}")
            return None
        return obj[key]

    if document.get("version") != 3:
        problems.append(f"{path}: version {document.get('version')!r}, nccl-tests writes 3")
    for key in ("start_time", "end_time"):
        value = need(document, key, str, "$")
        if value is not None and not re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", value):
            problems.append(f"{path}: $.{key} {value!r} is not 'YYYY-MM-DD HH:MM:SS'")
    for key in ("args", "env", "errors"):
        need(document, key, list, "$")
    need(document, "nccl_version", int, "$")
    config = need(document, "config", dict, "$") or {}
    for key in ("nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "warmup_iters", "iterations",
                "aggregated_iterations", "validation", "graph"):
        need(config, key, int, "$.config")
    if ("step_factor" in config) == ("step_bytes" in config):
        problems.append(f"{path}: $.config needs one of step_factor and step_bytes")
    for key in ("blocking_collectives", "parallel_init"):
        if config.get(key) not in ("true", "false"):
            problems.append(f"{path}: $.config.{key} {config.get(key)!r}: nccl-tests writes \"true\" or \"false\"")
    for index, device in enumerate(need(config, "devices", list, "$.config") or []):
        for key, kinds in (("rank", int), ("group", int), ("pid", int), ("hostname", str), ("device", int),
                           ("device_hex", str), ("device_info", str)):
            need(device, key, kinds, f"$.config.devices[{index}]")
    lines = {}
    for index, result in enumerate(need(document, "results", list, "$") or []):
        where = f"$.results[{index}]"
        size = need(result, "size", int, where)
        count = need(result, "count", int, where)
        kind = need(result, "type", str, where)
        need(result, "redop", str, where)
        root = need(result, "root", str, where)
        if root is not None and root.strip() != "-1":
            problems.append(f"{path}: {where}.root {root!r}")
        need(result, "actual_iterations", int, where)
        name = need(result, "experiment_name", str, where)
        if kind in NCCL_TYPE_SIZES and size is not None and count is not None and count * NCCL_TYPE_SIZES[kind] != size:
            problems.append(f"{path}: {where}: size {size} is not count {count} x {NCCL_TYPE_SIZES[kind]}")
        for placement in ("out_of_place", "in_place"):
            body = need(result, placement, dict, where) or {}
            for key in ("time", "alg_bw", "bus_bw"):
                need(body, key, (int, float), f"{where}.{placement}")
            if "nwrong" not in body or not (body["nwrong"] is None or body["nwrong"] == 0):
                problems.append(f"{path}: {where}.{placement}.nwrong {body.get('nwrong')!r}")
        lines[name] = lines.get(name, 0) + 1
    if list(lines) != algorithms or any(value != lines_per_table for value in lines.values()):
        problems.append(f"{path}: results per experiment_name {lines}, expected {lines_per_table} for each of {algorithms}")
    bounds = need(document, "out_of_bounds", dict, "$") or {}
    if bounds.get("count") != 0 or bounds.get("okay") != "true":
        problems.append(f"{path}: $.out_of_bounds {bounds}")
    average = need(document, "average_bus_bandwidth", dict, "$") or {}
    need(average, "bandwidth", (int, float), "$.average_bus_bandwidth")
    if average.get("okay") != "unchecked":
        problems.append(f"{path}: $.average_bus_bandwidth.okay {average.get('okay')!r}")
    return problems, f"{sum(lines.values())} results"


def check_csv(path, expected_rows):
    problems = []
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
        header = rows[0].keys() if rows else []
    for column in ("nranks", "backend", "algorithm", "type", "redop", "size_bytes", "count", "placement",
                   "time_us_avg", "time_us_p50", "algbw_gbps", "busbw_gbps", "wrong"):
        if column not in header:
            problems.append(f"{path}: no column {column!r} (header: {','.join(header)})")
    if len(rows) != expected_rows:
        problems.append(f"{path}: {len(rows)} rows, expected {expected_rows}")
    seen = set()
    text_columns = {"backend", "algorithm", "type", "redop", "placement"}
    for number, row in enumerate(rows, 2):
        key = tuple(row.get(column) for column in ("algorithm", "type", "redop", "size_bytes", "placement"))
        if key in seen:
            problems.append(f"{path}:{number}: a second row for {key}")
        seen.add(key)
        if row.get("type") in RINGLAB_TYPE_SIZES and int(row["count"]) * RINGLAB_TYPE_SIZES[row["type"]] != int(row["size_bytes"]):
            problems.append(f"{path}:{number}: size_bytes is not count x sizeof(type)")
        for column, value in row.items():
            if column in text_columns or value == "":
                continue
            try:
                float(value)
            except ValueError:
                if value not in ("true", "false"):
                    problems.append(f"{path}:{number}: {column} = {value!r} is not a number")
    return problems, f"{len(rows)} rows, {len(header)} columns"


def check_report(path, types, ops):
    problems = []
    report = json.load(open(path, encoding="utf-8"))
    config = report["config"]
    for key, list_key, expected in (("datatype", "datatypes", types), ("op", "ops", ops)):
        if expected > 1 and (config.get(key) != "all" or len(config.get(list_key, [])) != expected):
            problems.append(f"{path}: config.{key} {config.get(key)!r}, config.{list_key} {config.get(list_key)}; "
                            f"expected \"all\" and {expected} names")
    pairs = {(row["type"], row["redop"]) for row in report["results"]}
    if len(pairs) != types * ops:
        problems.append(f"{path}: rows hold {len(pairs)} (type, op) pairs, expected {types * ops}")
    if not report.get("complete"):
        problems.append(f"{path}: complete is not true")
    return problems, f"{len(pairs)} (type, op) pairs, {len(report['results'])} rows"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["text", "json", "csv", "report"])
    parser.add_argument("path")
    parser.add_argument("--algorithms", default="")
    parser.add_argument("--lines", type=int, default=0, help="table lines (sizes x types x ops) per algorithm")
    parser.add_argument("--rows", type=int, default=0)
    parser.add_argument("--types", type=int, default=1)
    parser.add_argument("--ops", type=int, default=1)
    arguments = parser.parse_args()
    algorithms = [name for name in arguments.algorithms.split(",") if name]
    if arguments.mode == "text":
        problems, summary = check_text(arguments.path, algorithms, arguments.lines)
    elif arguments.mode == "json":
        problems, summary = check_json(arguments.path, algorithms, arguments.lines)
    elif arguments.mode == "csv":
        problems, summary = check_csv(arguments.path, arguments.rows)
    else:
        problems, summary = check_report(arguments.path, arguments.types, arguments.ops)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_nccl_tests_output: {arguments.mode}: {len(problems)} problem(s)")
        return 1
    print(f"check_nccl_tests_output: OK {arguments.mode} {arguments.path}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
