"""ringlab's JSON reports as pandas DataFrames.

    import ringlab_reports
    frame = ringlab_reports.load("mpi-n2.json")          # bench, simulate, compare, train or replay
    frame[frame.algorithm == "ring"][["size_bytes", "placement", "time_us_p50"]]
    frame.attrs["document"]["config"]["nranks"]

One row per result; nested fields joined with "_" (time_us.p50 -> time_us_p50); the whole
document in frame.attrs["document"], with "path", "kind", "schema" and "table" beside it.
A file that is not such a report raises ReportError, whose message names the file and the field.
Described in docs/python-reports.md.
"""
from .reports import KINDS, ReportError, from_document, load
from .units import byte_label

__all__ = ["KINDS", "ReportError", "byte_label", "from_document", "load"]
