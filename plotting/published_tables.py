#!/usr/bin/env python3
"""ringlab's predictions of published nccl-tests all_reduce_perf tables (scripts/published-tables.sh).

Usage:
  published_tables.py text TABLES.json ID
  published_tables.py sizes TABLES.json ID
  published_tables.py fit TABLES.json ID BASE.json LAT.json BW.json --lat0 S --dlat S --bw0 B --bw1 B
  published_tables.py analyse TABLES.json MAPPING.json DIR [--apriori-goal PCT] [--calibrated-goal PCT]

A prediction of a size is the fastest of the report's algorithms there (NCCL's tuner picks one per
size); the measured figure is the table's out-of-place time.

text: prints the table as nccl-tests' all_reduce_perf text (float, sum, one rank line per rank,
#wrong 0: every published row passed its check), for `ringlab compare`.

sizes: prints the table's sweep (-b, -e, -f), then the two sizes the fit uses.

fit: the two-point calibration of one table. BASE, LAT and BW are predicted ringlab.bench/1 reports
of the table's smallest and largest sizes with the bottleneck level at (lat0, bw0), (lat0 + dlat,
bw0) and (lat0, bw1); per size the time is taken as linear in the latency and in 1 / bandwidth
(T = A + K lat + B / bw, K and B from the probes) and the two measured points (the smallest row's
lesser time, out-of-place or in-place: its first call is often a warm-up outlier; the largest
row's out-of-place time) are solved for lat and bw. The smallest row is the first with a float32
element per rank (below it ringlab prices fewer steps than NCCL runs). Prints `lat=S bw=B` (a latency that would be
negative is set to 0 and bw refitted to the largest row alone, and a note says so).

analyse: per table of MAPPING (DIR/ID/apriori.json and DIR/ID/calibrated.json), the median
|error| of busbw over rows >= 1 MiB (a priori) and of time over every row but the two fitted
(calibrated), against the goals (25 %, 10 %); the sizes where the fastest algorithm changes, and
where the measured busbw falls as size grows (a visible switch); DIR/summary.md, DIR/rows.csv and
DIR/ID/busbw.png/.svg (measured and both predictions by size). Exit status 0 when every table
meets both goals, 3 when written and some does not, 1 on bad input, 2 on a usage error.
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ringlab_reports  # noqa: E402  (next to this file, or installed: pip install ./plotting)
from ringlab_reports.units import byte_label  # noqa: E402

MIB = 1 << 20


class InputError(ValueError):
    """Bad input: the message names the file and what is wrong."""


def read_json(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: cannot read it as JSON: {error}") from error


def table_of(tables_path, table_id):
    """The table `table_id` of a published-nccl-tests.json document, checked."""
    document = read_json(tables_path)
    tables = document.get("tables") if isinstance(document, dict) else None
    if not isinstance(tables, list):
        raise InputError(f"{tables_path}: no 'tables' list; give the published nccl-tests tables file")
    for table in tables:
        if isinstance(table, dict) and table.get("id") == table_id:
            if table.get("collective") != "all_reduce_perf":
                raise InputError(f"{tables_path}: table {table_id} is {table.get('collective')!r}, not all_reduce_perf")
            rows = table.get("rows")
            if not isinstance(rows, list) or len(rows) < 3:
                raise InputError(f"{tables_path}: table {table_id} has fewer than 3 rows; the fit needs two and a third to check")
            for index, row in enumerate(rows):
                for field in ("bytes", "oop_us", "ip_us"):
                    value = row.get(field) if isinstance(row, dict) else None
                    if not isinstance(value, (int, float)) or value <= 0:
                        raise InputError(f"{tables_path}: table {table_id} rows[{index}].{field} is {value!r}; "
                                         "want a positive number")
            ranks = table.get("system", {}).get("nranks")
            if not isinstance(ranks, int) or ranks < 2:
                raise InputError(f"{tables_path}: table {table_id} system.nranks is {ranks!r}; want an integer >= 2")
            return table
    raise InputError(f"{tables_path}: no table with id {table_id}")


def sweep_of(table):
    """(min, max, factor): the nccl-tests sweep (-b, -e, -f) that gives exactly the table's sizes."""
    sizes = sorted(row["bytes"] for row in table["rows"])
    factor = sizes[1] // sizes[0]
    if factor < 2 or any(after != before * factor for before, after in zip(sizes, sizes[1:])):
        raise InputError(f"table {table['id']}: sizes {sizes[0]}, {sizes[1]}, ... are not one -b .. -e -f F sweep "
                         "(a size missing or repeated?); give every row of the run")
    return sizes[0], sizes[-1], factor


def nccl_tests_text(table):
    """The table as all_reduce_perf prints it, in the layout `ringlab compare` reads."""
    ranks = table["system"]["nranks"]
    lines = ["# Collective test starting: all_reduce_perf", "#", "# Using devices"]
    lines += [f"#  Rank {rank:2d} Group  0 Pid {rank:6d} on published device {rank % 8:2d} [0000:00:00] "
              f"{table['system'].get('gpu', 'GPU')}" for rank in range(ranks)]
    lines += ["#", f"#{'out-of-place':>74}{'in-place':>35}",
              "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
              "algbw   busbw  #wrong"]
    busbw = []
    for row in sorted(table["rows"], key=lambda r: r["bytes"]):
        cells = []
        for side in ("oop", "ip"):
            time = row[f"{side}_us"]
            algbw = row[f"{side}_algbw"] if row.get(f"{side}_algbw") is not None else row["bytes"] / time / 1e3
            bus = row[f"{side}_busbw"] if row.get(f"{side}_busbw") is not None else algbw * 2 * (ranks - 1) / ranks
            busbw.append(bus)
            cells.append(f"{time:>8g} {algbw:7.2f} {bus:7.2f} {0:7d}")
        lines.append(f"{row['bytes']:12d}  {row['bytes'] // 4:12d}     float     sum      -1 {cells[0]} {cells[1]}")
    lines += ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {statistics.mean(busbw):.4f}", "#",
              "# Collective test concluded: all_reduce_perf", ""]
    return "\n".join(lines)


def fastest(path):
    """{size: (time_us, algorithm)}: per size of a predicted report, its fastest out-of-place algorithm."""
    try:
        frame = ringlab_reports.load(path, kind="simulate")
    except ringlab_reports.ReportError as error:
        raise InputError(str(error)) from error
    frame = frame[frame["placement"] == "out-of-place"]
    if frame.empty:
        raise InputError(f"{path}: no out-of-place rows")
    best = {}
    for row in frame.itertuples():
        time = float(row.time_us_p50)
        if int(row.size_bytes) not in best or time < best[int(row.size_bytes)][0]:
            best[int(row.size_bytes)] = (time, row.algorithm)
    return best


def fit_points(table):
    """((bytes, us), (bytes, us)): the measured smallest and largest rows the fit uses. The smallest
    is the first row with a float32 element for every rank: below it ringlab's schedules skip the
    empty chunks and price fewer steps, where NCCL's time stays flat."""
    rows = sorted(table["rows"], key=lambda row: row["bytes"])
    ranks = table["system"]["nranks"]
    small = next((row for row in rows if row["bytes"] >= 4 * ranks), None)
    large = rows[-1]
    if small is None or small is large:
        raise InputError(f"table {table['id']}: no row below the largest holds a float32 element per rank "
                         f"({4 * ranks} B); the fit needs two rows")
    return (small["bytes"], min(small["oop_us"], small["ip_us"])), (large["bytes"], large["oop_us"])


def fit(table, base, lat_probe, bw_probe, lat0, dlat, bw0, bw1):
    """(lat, bw, note): the bottleneck level's latency and bandwidth that put the model through both points."""
    points = fit_points(table)
    coefficients = []
    for size, _ in points:
        for name, report in (("BASE", base), ("LAT", lat_probe), ("BW", bw_probe)):
            if size not in report:
                raise InputError(f"the {name} report has no {size} B row; run the probes at the table's smallest "
                                 "and largest sizes")
        t0, tl, tb = base[size][0], lat_probe[size][0], bw_probe[size][0]
        k = (tl - t0) / dlat
        b = (tb - t0) / (1 / bw1 - 1 / bw0)
        coefficients.append((t0 - k * lat0 - b / bw0, k, b))
    (a1, k1, b1), (a2, k2, b2) = coefficients
    (_, m1), (_, m2) = points
    determinant = k1 * b2 - k2 * b1
    note = ""
    if determinant != 0:
        lat = ((m1 - a1) * b2 - (m2 - a2) * b1) / determinant
        inverse_bw = (k1 * (m2 - a2) - k2 * (m1 - a1)) / determinant
    else:
        lat, inverse_bw = -1, 0
    if lat < 0 or inverse_bw <= 0:
        lat = 0.0
        note = "the latency fit fell below 0: set to 0, bandwidth fitted to the largest row alone"
        if b2 <= 0:
            raise InputError("the largest size's time does not grow with 1 / bandwidth: this level is not the bottleneck")
        inverse_bw = (m2 - a2) / b2
        if inverse_bw <= 0:
            raise InputError("the largest row is faster than the model allows at any bandwidth of this level")
    return lat, 1 / inverse_bw, note


def error_summary(table, apriori, calibrated):
    """Per row: size, measured and predicted (a priori, calibrated) time, busbw and algorithm."""
    ranks = table["system"]["nranks"]
    factor = 2 * (ranks - 1) / ranks
    fitted = {size for size, _ in fit_points(table)}
    rows = []
    for row in sorted(table["rows"], key=lambda r: r["bytes"]):
        size = row["bytes"]
        if size not in apriori or size not in calibrated:
            raise InputError(f"table {table['id']}: no prediction of {size} B; predict every size of the table")
        entry = {"id": table["id"], "bytes": size, "measured_us": row["oop_us"],
                 "measured_busbw": size / row["oop_us"] / 1e3 * factor, "fitted": size in fitted}
        for name, report in (("apriori", apriori), ("calibrated", calibrated)):
            time, algorithm = report[size]
            entry[f"{name}_us"] = time
            entry[f"{name}_busbw"] = size / time / 1e3 * factor
            entry[f"{name}_algorithm"] = algorithm
        rows.append(entry)
    big = [abs(r["apriori_busbw"] / r["measured_busbw"] - 1) for r in rows if r["bytes"] >= MIB]
    checked = [abs(r["calibrated_us"] / r["measured_us"] - 1) for r in rows if not r["fitted"]]
    points = dict(fit_points(table))
    residual = max(abs(r["calibrated_us"] / points[r["bytes"]] - 1) for r in rows if r["fitted"])
    return rows, (statistics.median(big) if big else None), (statistics.median(checked) if checked else None), residual


def switches(rows, key):
    """Sizes where the predicted algorithm changes: 'nccl_tree -> nccl_ring at 4 MiB'."""
    found = []
    for before, after in zip(rows, rows[1:]):
        if before[key] != after[key]:
            found.append(f"{before[key]} -> {after[key]} at {byte_label(after['bytes'])}")
    return found


def visible_switches(rows):
    """Sizes >= 64 KiB where the measured busbw falls by over 5 % from the size before."""
    return [byte_label(after["bytes"]) for before, after in zip(rows, rows[1:])
            if after["bytes"] >= 64 << 10 and after["measured_busbw"] < 0.95 * before["measured_busbw"]]


def percent(value):
    return "n/a" if value is None else f"{100 * value:.1f} %"


def verdict(value, goal):
    return "n/a" if value is None else ("PASS" if value <= goal else "MISS")


def plot(table, entry, rows, out_dir, written):
    from ringlab_plot import save, setup_matplotlib
    plt, _, _, _ = setup_matplotlib()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    sizes = [r["bytes"] for r in rows]
    ax.plot(sizes, [r["measured_busbw"] for r in rows], "o", color="black", label="measured (out-of-place)")
    ax.plot(sizes, [r["apriori_busbw"] for r in rows], "-", color="tab:blue", label="a priori (preset)")
    ax.plot(sizes, [r["calibrated_busbw"] for r in rows], "--", color="tab:orange", label="calibrated (2 points)")
    ax.plot([r["bytes"] for r in rows if r["fitted"]], [r["measured_busbw"] for r in rows if r["fitted"]], "s",
            markerfacecolor="none", markeredgecolor="tab:orange", markersize=10, label="fitted rows")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    system = table.get("system", {})
    marked = f"; {entry['not_modelled']} not modelled" if entry.get("not_modelled") else ""
    ax.set_title(f"table {table['id']}: {system.get('gpu', '')}, {system.get('nranks')} GPUs\n"
                 f"{entry['preset']} ({entry['algorithms']}{marked})", fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    directory = os.path.join(out_dir, str(table["id"]))
    os.makedirs(directory, exist_ok=True)
    save(plt, fig, directory, "busbw", written)


def analyse(arguments):
    mapping = read_json(arguments.mapping)
    entries = mapping.get("tables") if isinstance(mapping, dict) else None
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{arguments.mapping}: no 'tables' list of presets")
    apriori_goal, calibrated_goal = arguments.apriori_goal / 100, arguments.calibrated_goal / 100
    lines = ["| table | system | preset | algorithms | rows | a priori busbw >= 1 MiB | "
             f"goal {arguments.apriori_goal:g} % | calibrated time | goal {arguments.calibrated_goal:g} % | fitted lat, bw | fit rows off by |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    switch_lines = ["| table | ringlab's switches (a priori) | measured busbw falls at |", "|---|---|---|"]
    all_rows, written, met = [], [], True
    for entry in entries:
        table = table_of(arguments.tables, entry.get("id"))
        directory = os.path.join(arguments.dir, str(table["id"]))
        apriori = fastest(os.path.join(directory, "apriori.json"))
        calibrated = fastest(os.path.join(directory, "calibrated.json"))
        rows, apriori_error, calibrated_error, residual = error_summary(table, apriori, calibrated)
        met = met and verdict(apriori_error, apriori_goal) != "MISS" and verdict(calibrated_error, calibrated_goal) != "MISS"
        fit_file = os.path.join(directory, "fit.txt")
        fitted = "n/a"
        if os.path.exists(fit_file):  # "lat=S bw=B" and a note: named as the preset's parameters
            with open(fit_file, encoding="utf-8") as file:
                first, *notes = file.read().strip().split("\n")
            level = entry.get("level", {})
            named = [f"{level.get(key, key)}={value}" for key, value in (part.split("=", 1) for part in first.split())]
            fitted = "; ".join([" ".join(named), *notes])
        system = table.get("system", {})
        marked = f" ({entry['not_modelled']} not modelled)" if entry.get("not_modelled") else ""
        lines.append(f"| {table['id']} | {system.get('gpu', '')}, {system.get('nranks')} GPUs, {system.get('nodes', 1)} "
                     f"node(s) | `{entry['preset']}` | {entry['algorithms']}{marked} | {len(rows)} | "
                     f"{percent(apriori_error)} | {verdict(apriori_error, apriori_goal)} | {percent(calibrated_error)} | "
                     f"{verdict(calibrated_error, calibrated_goal)} | {fitted} | {percent(residual)} |")
        switch_lines.append(f"| {table['id']} | {', '.join(switches(rows, 'apriori_algorithm')) or 'none'} | "
                            f"{', '.join(visible_switches(rows)) or 'none'} |")
        all_rows.extend(rows)
        plot(table, entry, rows, arguments.dir, written)
    summary = "\n".join(lines + [""] + switch_lines) + "\n"
    from ringlab_plot import write_atomically
    write_atomically(os.path.join(arguments.dir, "summary.md"), lambda file: file.write(summary), "w")
    import pandas as pd
    table_text = pd.DataFrame(all_rows).to_csv(index=False)
    write_atomically(os.path.join(arguments.dir, "rows.csv"), lambda file: file.write(table_text), "w")
    print(summary, end="")
    for path in written:
        print(f"wrote {path}")
    return 0 if met else 3


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    text_command = commands.add_parser("text")
    text_command.add_argument("tables")
    text_command.add_argument("id", type=int)
    sizes_command = commands.add_parser("sizes")
    sizes_command.add_argument("tables")
    sizes_command.add_argument("id", type=int)
    fit_command = commands.add_parser("fit")
    fit_command.add_argument("tables")
    fit_command.add_argument("id", type=int)
    for name in ("base", "lat_probe", "bw_probe"):
        fit_command.add_argument(name)
    for name in ("--lat0", "--dlat", "--bw0", "--bw1"):
        fit_command.add_argument(name, type=float, required=True)
    analyse_command = commands.add_parser("analyse")
    analyse_command.add_argument("tables")
    analyse_command.add_argument("mapping")
    analyse_command.add_argument("dir")
    analyse_command.add_argument("--apriori-goal", type=float, default=25)
    analyse_command.add_argument("--calibrated-goal", type=float, default=10)
    arguments = parser.parse_args(argv)
    if arguments.command == "fit" and (arguments.dlat <= 0 or min(arguments.bw0, arguments.bw1) <= 0
                                       or arguments.bw0 == arguments.bw1 or arguments.lat0 < 0):
        parser.error("--dlat and the bandwidths must be positive, --bw1 other than --bw0, --lat0 at least 0")
    return arguments


def main(argv):
    arguments = parse_arguments(argv)
    try:
        if arguments.command == "text":
            print(nccl_tests_text(table_of(arguments.tables, arguments.id)), end="")
            return 0
        if arguments.command == "sizes":
            table = table_of(arguments.tables, arguments.id)
            (small, _), (large, _) = fit_points(table)
            print(*sweep_of(table), small, large)
            return 0
        if arguments.command == "fit":
            table = table_of(arguments.tables, arguments.id)
            lat, bw, note = fit(table, fastest(arguments.base), fastest(arguments.lat_probe), fastest(arguments.bw_probe),
                                arguments.lat0, arguments.dlat, arguments.bw0, arguments.bw1)
            print(f"lat={lat:.6g} bw={bw:.6g}")
            if note:
                print(f"note: {note}")
            return 0
        return analyse(arguments)
    except InputError as error:
        print(f"published_tables.py: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
