"""load(): one ringlab report file as a pandas DataFrame (see the package's docstring)."""
import json

import pandas

# kind -> (schema, the document's "kind" field or None, {table: the fields every row needs}); the
# first table is the one load() returns unless asked for another.
KINDS = {
    "bench": ("ringlab.bench/1", "measured", {"results": ("algorithm", "size_bytes", "placement", "time_us")}),
    "simulate": ("ringlab.bench/1", "predicted", {"results": ("algorithm", "size_bytes", "placement", "time_us")}),
    "compare": ("ringlab.compare/1", None, {"rows": ("algorithm", "nranks", "size_bytes", "placement",
                                                     "measured_us", "predicted_us"),
                                            "summary": ("algorithm", "model", "nranks", "median_abs_error")}),
    "train": ("ringlab.train/1", None, {"steps": ("step", "loss")}),
    "replay": ("ringlab.replay/1", None, {"results": ("algorithm", "mode", "available"),
                                          "speedups": ("algorithm", "speedup")}),
}
WRITERS = {"bench": "ringlab bench --json", "simulate": "ringlab simulate --json",
           "compare": "ringlab compare --json", "train": "ringlab train --json",
           "replay": "ringlab replay --json or ringlab simulate --workload --json"}


class ReportError(ValueError):
    """A file that is not a readable ringlab report of the kind asked for; the message names the
    file and what is wrong."""


def described(kind, accepted=()):
    """'a ringlab.bench/1 report', 'a ringlab.compare/1 document', 'a predicted ringlab.bench/1 report':
    the kind's marker only where its schema has kinds that are not all in accepted."""
    schema, marker, _ = KINDS[kind]
    siblings = {k for k, (name, _, _) in KINDS.items() if name == schema}
    noun = "document" if kind == "compare" else "report"  # what compare.md calls its output
    return f"a {marker + ' ' if len(siblings) > 1 and not siblings <= set(accepted) else ''}{schema} {noun}"


def described_all(kinds):
    return " or ".join(dict.fromkeys(described(k, kinds) for k in kinds))


def kind_of(document, path, expected=None):
    """The kind ("bench", "simulate", ...) of a parsed document, or ReportError; expected (a tuple
    of kinds or None) only words the error."""
    wanted = described_all(expected) if expected else "a ringlab report this package reads"
    if not isinstance(document, dict):
        raise ReportError(f"{path}: not {wanted}: the document is a JSON {type(document).__name__}, not an object")
    schema = document.get("schema")
    kinds = [kind for kind, (name, _, _) in KINDS.items() if name == schema]
    if not kinds:
        known = ", ".join(sorted({name for name, _, _ in KINDS.values()}))
        raise ReportError(f"{path}: not {wanted} (schema {schema!r}; this package reads {known})")
    if len(kinds) == 1:
        return kinds[0]
    marker = document.get("kind", "measured")  # bench reports made by hand may leave it out
    for kind in kinds:
        if KINDS[kind][1] == marker:
            return kind
    raise ReportError(f"{path}: {schema} with kind {marker!r}; expected one of "
                      + ", ".join(repr(KINDS[k][1]) for k in kinds))


def wanted_kinds(kind):
    """None (any kind), or the tuple of kinds a caller accepts, each checked to exist."""
    if kind is None:
        return None
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown report kind {unknown[0]!r}; the kinds are {', '.join(KINDS)}")
    return kinds


def rows_of(document, path, kind, table):
    tables = KINDS[kind][2]
    if table not in tables:
        raise ReportError(f"{path}: a {kind} report has no table {table!r}; it has {', '.join(tables)}")
    rows = document.get(table)
    if not isinstance(rows, list):
        raise ReportError(f"{path}: field {table!r} missing or not a list (is the file cut off, or not written "
                          f"by {WRITERS[kind]}?)")
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ReportError(f"{path}: {table}[{index}] is not an object")
        for field in tables[table]:
            if field not in row:
                raise ReportError(f"{path}: {table}[{index}]: missing field {field!r} (a {kind} row needs "
                                  f"{', '.join(tables[table])})")
    return rows


def from_document(document, path="<document>", kind=None, table=None):
    """The DataFrame of an already parsed report document; path only names it in errors and attrs.
    kind: a kind or kinds to accept (others raise ReportError); table: which list of the document
    (default: its main one: results, rows, steps)."""
    accepted = wanted_kinds(kind)
    actual = kind_of(document, path, accepted)
    if accepted is not None and actual not in accepted:
        expected = described_all(accepted)
        raise ReportError(f"{path}: not {expected} (it is {described(actual)}, from {WRITERS[actual]}); "
                          f"give one written by {' or '.join(WRITERS[k] for k in accepted)}")
    table = table or next(iter(KINDS[actual][2]))
    rows = rows_of(document, path, actual, table)
    frame = pandas.json_normalize(rows, sep="_") if rows else pandas.DataFrame(columns=list(KINDS[actual][2][table]))
    frame.attrs.update(document=document, path=str(path), kind=actual, schema=KINDS[actual][0], table=table)
    return frame


def load(path, kind=None, table=None):
    """One report file as a DataFrame; see from_document() for kind and table."""
    try:
        with open(path, encoding="utf-8") as stream:
            document = json.load(stream)
    except OSError as error:
        raise ReportError(f"{path}: cannot read it: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ReportError(f"{path}: not a text file ({error.reason})") from error
    except json.JSONDecodeError as error:
        raise ReportError(f"{path}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno} "
                          "(a cut-off or hand-edited file?)") from error
    return from_document(document, path, kind, table)
