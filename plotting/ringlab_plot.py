#!/usr/bin/python3
"""Plot ringlab.bench/1 reports (the JSON that `ringlab bench` writes).

Usage: plotting/ringlab_plot.py REPORT... --out DIR [--baseline NAME] [--placement out-of-place|in-place]

For each report, writes PNG and SVG files into DIR:
  busbw_vs_size        bus bandwidth per algorithm against message size (log2 x axis)
  latency_vs_size      average time per call against message size (log-log)
  speedup_vs_baseline  time(baseline) / time(algorithm) per size; the baseline is --baseline or
                       config.baseline, and the plot is skipped with a note when it has no results
With one report the names are plain (busbw_vs_size.png); with several, each report's files carry
its rank count (busbw_vs_size_n4.png), and reports that share a rank count are numbered in
command-line order (busbw_vs_size_n4_1.png, busbw_vs_size_n4_2.png).
When the reports cover two or more rank counts, also:
  busbw_vs_ranks       bus bandwidth per algorithm against N, at the largest size every report has

Every report is validated first (validate_report.py); a bad one is refused with the validator's
messages and nothing is written for it. Exit status: 0 when everything was plotted, 1 when a report
was refused or a file could not be written, 2 on a usage error.
"""

import argparse
import json
import math
import os
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_report  # noqa: E402  (next to this file)

FORMATS = ("png", "svg")
PLACEMENTS = ("out-of-place", "in-place")

# Fixed style per algorithm, so that a colour means the same thing in every plot.
STYLE = {
    "parameter_server": ("tab:gray", "s"),
    "ring": ("tab:blue", "o"),
    "interval_paired": ("tab:red", "D"),
    "halving_doubling": ("tab:green", "^"),
    "recursive_doubling": ("tab:purple", "v"),
    "mpi-native": ("tab:orange", "P"),
}


def note(message):
    print(f"ringlab_plot.py: note: {message}", file=sys.stderr)


def byte_label(size):
    """8 -> '8B', 1024 -> '1K', 67108864 -> '64M', 1536 -> '1.5K' (binary units, as ringlab's -b/-e)."""
    for shift, unit in ((40, "T"), (30, "G"), (20, "M"), (10, "K")):
        if size >= 1 << shift:
            value = size / (1 << shift)
            return f"{value:g}{unit}" if value == int(value) else f"{value:.3g}{unit}"
    return f"{size:g}B"


class Report:
    def __init__(self, path, data, placement):
        self.path = path
        self.data = data
        self.config = data["config"]
        self.nranks = self.config["nranks"]
        self.placement = placement
        self.rows = [row for row in data["results"] if row["placement"] == placement]
        self.suffix = ""

    def series(self, algorithm):
        """Rows of one algorithm at this report's placement, sorted by size."""
        return sorted((row for row in self.rows if row["algorithm"] == algorithm), key=lambda row: row["size_bytes"])

    def algorithms(self):
        present = {row["algorithm"] for row in self.rows}
        return [name for name in self.config["algorithms"] if name in present]

    def subtitle(self):
        data, config = self.data, self.config
        text = (f"{data['kind']}: backend {config['backend']}, N={self.nranks}, {config['datatype']}, "
                f"op {config['op']}, {self.placement}, host {data['machine']['hostname']}")
        if config.get("oversubscribed"):  # bench's placement check: no bandwidth claim from such a run
            text += (f"\nOVERSUBSCRIBED: {config.get('ranks_per_host')} ranks on {config.get('usable_cores')} cores: "
                     "correctness and latency ordering only, not bandwidth")
        return text + (" (partial)" if not data["complete"] else "")


def load(path, placement_wanted):
    """Validate and load one report; returns (Report or None, problems)."""
    data, problems = validate_report.validate_file(path)
    if problems:
        return None, problems
    placements = {row["placement"] for row in data["results"]}
    if placement_wanted is not None:
        placement = placement_wanted
    else:
        placement = "out-of-place" if "out-of-place" in placements or not placements else "in-place"
    if placement not in placements:
        if not data["results"]:
            return None, ["$.results: no results to plot (the report is empty)"]
        return None, [f"$.results: no results with placement {placement} "
                      f"(the report has: {', '.join(sorted(placements))})"]
    return Report(path, data, placement), []


# ---------------------------------------------------------------- drawing

def setup_matplotlib():
    try:
        import matplotlib
    except ImportError as error:
        print(f"ringlab_plot.py: matplotlib is missing ({error}); install it with: "
              "apt-get install python3-matplotlib", file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "ringlab"  # stable ids: the same report gives the same SVG
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    return plt, FixedLocator, FuncFormatter, NullLocator


def size_axis(ax, sizes, mpl):
    """Log2 x axis with byte labels at powers of two (at most ~12 of them)."""
    _, FixedLocator, FuncFormatter, NullLocator = mpl
    ax.set_xscale("log", base=2)
    low = math.floor(math.log2(min(sizes)))
    high = math.ceil(math.log2(max(sizes)))
    distinct = sorted(set(sizes))
    if len(distinct) <= 12 and all(size & (size - 1) == 0 for size in distinct):
        ticks = [float(size) for size in distinct]  # the measured sizes themselves (e.g. -f 8: 8B 64B 512B)
    else:
        step = max(1, math.ceil((high - low + 1) / 12))
        ticks = [2.0 ** exponent for exponent in range(low, high + 1, step)]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: byte_label(int(round(value)))))
    if low == high:
        ax.set_xlim(2.0 ** (low - 1), 2.0 ** (high + 1))
    ax.set_xlabel("message size (bytes)")


def time_axis(ax, times, mpl):
    """Log10 y axis labelled with plain numbers (1, 2, 5, 10, 20...; decades only past 4 decades)."""
    from matplotlib.ticker import LogLocator, NullFormatter
    _, _, FuncFormatter, _ = mpl
    ax.set_yscale("log")
    decades = math.log10(max(times)) - math.log10(min(times))
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if decades > 4 else (1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    if decades < 0.3:  # less than a factor 2: make sure two labels show
        middle = math.sqrt(max(times) * min(times))
        ax.set_ylim(middle / 2.5, middle * 2.5)


def new_figure(plt, title, subtitle):
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    ax.set_title(f"{title}\n" + textwrap.fill(subtitle, 100, break_on_hyphens=False), fontsize=10)
    ax.grid(True, which="major", alpha=0.35)
    return fig, ax


def plot_line(ax, name, xs, ys):
    color, marker = STYLE.get(name, (None, "o"))
    ax.plot(xs, ys, label=name, color=color, marker=marker, markersize=4, linewidth=1.5)


def finish(ax):
    ax.figure.tight_layout()
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no data to plot", transform=ax.transAxes, ha="center", va="center")


def save(plt, fig, out_dir, stem, written):
    """Write STEM.png and STEM.svg atomically (temporary file in DIR, then os.replace)."""
    try:
        for fmt in FORMATS:
            target = os.path.join(out_dir, f"{stem}.{fmt}")
            handle, temporary = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".{fmt}.tmp", dir=out_dir)
            try:
                with os.fdopen(handle, "wb") as file:
                    fig.savefig(file, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
                os.chmod(temporary, 0o644)
                os.replace(temporary, target)
            except BaseException:
                if os.path.exists(temporary):
                    os.unlink(temporary)
                raise
            written.append(target)
    finally:
        plt.close(fig)


def read_report(path, schema):
    """(report, problem) for a JSON report that must carry `schema`; problem is None when it does."""
    try:
        with open(path, encoding="utf-8") as file:
            report = json.load(file)
    except (OSError, ValueError) as error:
        return None, f"cannot read a JSON document: {error}"
    if not isinstance(report, dict) or report.get("schema") != schema:
        return None, f"not a {schema} report (schema: {report.get('schema') if isinstance(report, dict) else None!r})"
    return report, None


def list_written(written):
    """Prints the files a plot script wrote, one per line, as every script here ends."""
    for path in written:
        print(f"wrote {path}")


def positive(rows, value):
    """(size, value) pairs that a log axis can show: drops 0-byte sizes and non-positive values."""
    return [(row["size_bytes"], value(row)) for row in rows if row["size_bytes"] > 0 and value(row) > 0]


def plot_busbw_vs_size(plt, mpl, report, out_dir, written):
    fig, ax = new_figure(plt, "Bus bandwidth vs message size", report.subtitle())
    sizes = []
    for name in report.algorithms():
        points = [(row["size_bytes"], row["busbw_gbps"]) for row in report.series(name) if row["size_bytes"] > 0]
        if points:
            plot_line(ax, name, *zip(*points))
            sizes += [size for size, _ in points]
    if sizes:
        size_axis(ax, sizes, mpl)
    ax.set_ylabel("busbw (GB/s)")
    ax.set_ylim(bottom=0)
    if report.nranks == 1:
        ax.text(0.02, 0.95, "N=1: busbw is 0 by definition", transform=ax.transAxes, va="top", fontsize=8)
    finish(ax)
    save(plt, fig, out_dir, "busbw_vs_size" + report.suffix, written)


def plot_latency_vs_size(plt, mpl, report, out_dir, written):
    fig, ax = new_figure(plt, "Latency vs message size (average time per call)", report.subtitle())
    sizes, times = [], []
    for name in report.algorithms():
        points = positive(report.series(name), lambda row: row["time_us"]["avg"])
        if points:
            plot_line(ax, name, *zip(*points))
            sizes += [size for size, _ in points]
            times += [time for _, time in points]
    if sizes:
        size_axis(ax, sizes, mpl)
        time_axis(ax, times, mpl)
    ax.set_ylabel("time per call (us), average")
    finish(ax)
    save(plt, fig, out_dir, "latency_vs_size" + report.suffix, written)


def plot_speedup(plt, mpl, report, baseline, out_dir, written):
    base = {row["size_bytes"]: row["time_us"]["avg"] for row in report.series(baseline)}
    if not base:
        note(f"{report.path}: speedup_vs_baseline{report.suffix} skipped: the baseline {baseline} "
             f"has no {report.placement} results in this report")
        return
    fig, ax = new_figure(plt, f"Speedup over {baseline} (time of {baseline} / time of algorithm)",
                         report.subtitle())
    sizes = []
    for name in report.algorithms():
        points = [(row["size_bytes"], base[row["size_bytes"]] / row["time_us"]["avg"])
                  for row in report.series(name)
                  if row["size_bytes"] > 0 and row["size_bytes"] in base and row["time_us"]["avg"] > 0
                  and base[row["size_bytes"]] > 0]
        if points:
            plot_line(ax, name, *zip(*points))
            sizes += [size for size, _ in points]
    if sizes:
        size_axis(ax, sizes, mpl)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_ylabel(f"speedup over {baseline} (>1: faster)")
    ax.set_ylim(bottom=0)
    finish(ax)
    save(plt, fig, out_dir, "speedup_vs_baseline" + report.suffix, written)


def plot_busbw_vs_ranks(plt, mpl, reports, out_dir, written):
    by_ranks = {}
    for report in reports:
        if report.nranks in by_ranks:
            note(f"busbw_vs_ranks uses {by_ranks[report.nranks].path} for N={report.nranks}, "
                 f"not {report.path}")
        else:
            by_ranks[report.nranks] = report
    chosen = [by_ranks[n] for n in sorted(by_ranks)]
    common = set.intersection(*({row["size_bytes"] for row in report.rows} for report in chosen))
    if not common:
        note("busbw_vs_ranks skipped: the reports have no message size in common")
        return
    size = max(common)

    def joined(values):
        unique = list(dict.fromkeys(values))
        return "/".join(unique)

    subtitle = (f"{joined(r.data['kind'] for r in chosen)}: backend {joined(r.config['backend'] for r in chosen)}, "
                f"N={','.join(str(r.nranks) for r in chosen)}, {joined(r.config['datatype'] for r in chosen)}, "
                f"op {joined(r.config['op'] for r in chosen)}, {joined(r.placement for r in chosen)}, "
                f"host {joined(r.data['machine']['hostname'] for r in chosen)}")
    if not all(r.data["complete"] for r in chosen):
        subtitle += " (partial)"
    fig, ax = new_figure(plt, f"Bus bandwidth vs number of ranks at {byte_label(size)} ({size} B)", subtitle)
    names = list(dict.fromkeys(name for r in chosen for name in r.config["algorithms"]))
    for name in names:
        points = [(r.nranks, row["busbw_gbps"]) for r in chosen for row in r.series(name)
                  if row["size_bytes"] == size]
        if points:
            plot_line(ax, name, *zip(*points))
    ranks = [r.nranks for r in chosen]
    if max(ranks) >= 8 * min(ranks):  # wide range (2..64): log2 axis
        _, FixedLocator, FuncFormatter, NullLocator = mpl
        ax.set_xscale("log", base=2)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    ax.set_xticks(ranks)
    ax.set_xlabel("number of ranks N")
    ax.set_ylabel("busbw (GB/s)")
    ax.set_ylim(bottom=0)
    finish(ax)
    save(plt, fig, out_dir, "busbw_vs_ranks", written)


# ---------------------------------------------------------------- main

def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="ringlab_plot.py",
        description="Plot ringlab.bench/1 reports into PNG and SVG files.",
        epilog="File names and rules: see docs/bench-report-format.md.")
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="ringlab.bench/1 JSON report")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write the plots into (created)")
    parser.add_argument("--baseline", metavar="NAME", choices=sorted(STYLE),
                        help="algorithm for speedup_vs_baseline (default: each report's config.baseline)")
    parser.add_argument("--placement", choices=PLACEMENTS,
                        help="which results to plot (default: out-of-place, or in-place if a report has only those)")
    return parser.parse_args(argv)


def main(argv):
    arguments = parse_arguments(argv)
    status = 0
    reports = []
    for path in arguments.reports:
        try:
            report, problems = load(path, arguments.placement)
        except validate_report.SchemaUnavailable as error:
            print(f"ringlab_plot.py: {error}", file=sys.stderr)
            return 2
        if problems:
            validate_report.print_problems(path, problems)
            print(f"{path}: refused, nothing plotted for it", file=sys.stderr)
            status = 1
        else:
            reports.append(report)
    if not reports:
        return status

    if len(reports) > 1:
        counts = {}
        for report in reports:
            counts[report.nranks] = counts.get(report.nranks, 0) + 1
        seen = {}
        for report in reports:
            seen[report.nranks] = seen.get(report.nranks, 0) + 1
            report.suffix = f"_n{report.nranks}" + (f"_{seen[report.nranks]}" if counts[report.nranks] > 1 else "")

    try:
        os.makedirs(arguments.out, exist_ok=True)
    except OSError as error:
        print(f"ringlab_plot.py: cannot create {arguments.out}: {error.strerror or error}", file=sys.stderr)
        return 1

    mpl = setup_matplotlib()
    plt = mpl[0]
    written = []
    try:
        for report in reports:
            plot_busbw_vs_size(plt, mpl, report, arguments.out, written)
            plot_latency_vs_size(plt, mpl, report, arguments.out, written)
            plot_speedup(plt, mpl, report, arguments.baseline or report.config["baseline"], arguments.out, written)
        if len({report.nranks for report in reports}) > 1:
            plot_busbw_vs_ranks(plt, mpl, reports, arguments.out, written)
    except OSError as error:
        print(f"ringlab_plot.py: cannot write into {arguments.out}: {error.strerror or error}", file=sys.stderr)
        status = 1
    list_written(written)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
