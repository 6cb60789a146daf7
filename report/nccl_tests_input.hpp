// Reading nccl-tests' own all_reduce_perf output as a measured ringlab.bench/1 report, so
// `ringlab compare` prices a cluster's run (docs/compare.md#nccl-tests-output). Two inputs, learned
// from nccl-tests' source (src/util.cu, src/common.cu):
//   - its text output: '#' header lines (the nThread/minBytes line, one "#  Rank R ... on HOST device
//     D [BUS] NAME" line per rank), the column titles, one row per size (size, count, type, redop,
//     root, then time, algbw, busbw, #wrong out-of-place and in-place; before mid-2022 no root
//     column and an "error" column holding the largest deviation, not a count), then always
//     "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth : X". Lines without '#'
//     outside the table (NCCL's own log) are skipped, as are "NCCL INFO/WARN" lines inside it.
//   - its JSON (-J, version 3): config (nthreads, ngpus, devices: one per process), results[]
//     (size, count, type, redop, out_of_place/in_place {time, alg_bw, bus_bw, nwrong}), then
//     out_of_bounds and average_bus_bandwidth, which a run cut short does not reach.
// A row becomes two result rows (one per placement) whose every time statistic is nccl-tests' one
// time (the timed loop's mean; cv 0). Refused, naming the line (text) or the JSON path: a table cut
// short or never closed, another collective (the program's name, a size that is not count x the
// element size, or busbw != algbw x 2(N-1)/N where algbw >= 1 GB/s), #wrong > 0 or out-of-bounds
// values, an unparsable number, a type or op ringlab has not, rows of several types or ops, no rank
// count (neither "# Rank" lines nor ringlab's "| N ranks |" line).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace ringlab::report {

// The bench report held in `path`: a JSON document with a "schema" is returned as read (its reader
// checks it); nccl-tests' JSON (an object with "version" and "results", no "schema") or any other
// text (nccl-tests' table) is converted. Rows name `algorithm` (the schedule a model prices NCCL's
// run with) unless a table says its own ("# Algorithm: NAME", as ringlab prints them).
nlohmann::json read_bench_document(const std::string& path, const std::string& algorithm);

// The conversions; `source` names the input in messages ("nccl-tests output 'run.txt'").
nlohmann::json nccl_tests_text_report(std::string_view text, const std::string& source, const std::string& algorithm);
nlohmann::json nccl_tests_json_report(const nlohmann::json& document, const std::string& source,
                                      const std::string& algorithm);

}  // namespace ringlab::report
