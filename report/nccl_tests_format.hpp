// `ringlab bench --format nccl-tests`: the result table as nccl-tests' all_reduce_perf prints it,
// column for column, one table per algorithm, so scripts written for nccl-tests read it unchanged.
// Everything here is a pure function of a ringlab.bench/1 report (report.hpp's make_report, or
// several of them merged by type_op_sweep.hpp), so what the table says is what the report says.
// The layout, learned from nccl-tests' documentation and output (docs/bench.md#output-formats):
//   a comment line "# Algorithm: NAME" (ringlab's addition), the column titles
//   (size count type redop root | time algbw busbw #wrong out-of-place | the same in-place),
//   one line per size, then "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth    : X".
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::report {

// nccl-tests' spelling, in its `type` column, of a type as a report names it (float32, float64,
// float16, bfloat16, int32, int64): float, double, half, bfloat16, int32, int64. Throws
// std::invalid_argument on any other name.
std::string_view nccl_tests_type_name(std::string_view type);

// The inverse: ringlab's name of nccl-tests' spelling (float -> float32; "int", before 2022, ->
// int32); empty when ringlab has no such type.
std::string ringlab_type_name(std::string_view nccl_tests_type);

// A number right-aligned in `width` characters as nccl-tests prints times and bandwidths: two
// decimals, or one, or none when that is too wide, else in exponent form.
std::string nccl_tests_number(double value, int width);

// The figures of one placement in a table line.
struct NcclTestsFigures {
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::int64_t wrong = -1;  // -1: not checked (-c 0), printed N/A
};

// One line of the table: out-of-place then in-place for one size.
struct NcclTestsLine {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  std::string type;   // nccl-tests' spelling (nccl_tests_type_name)
  std::string redop;  // sum, prod, min, max, avg
  int root = -1;      // all-reduce has no root: nccl-tests prints -1
  int iterations = 0; // timed calls (the rows' "iters"; 0 when the report does not say)
  NcclTestsFigures out_of_place;
  NcclTestsFigures in_place;
};

// One table: one algorithm's lines in the report's order.
struct NcclTestsTable {
  std::string algorithm;
  std::vector<NcclTestsLine> lines;
  // Results (one placement at one size) with a wrong element: nccl-tests' "Out of bounds values".
  std::int64_t failed_results = 0;
  // Mean bus bandwidth over every placement of every line: nccl-tests' "Avg bus bandwidth".
  double average_busbw_gbps = 0;
};

// The tables of a report, one per algorithm in config.algorithms order; a line pairs the
// out-of-place and in-place rows of one (type, op, size). Throws std::invalid_argument on a row
// whose other placement is missing.
std::vector<NcclTestsTable> nccl_tests_tables(const nlohmann::json& report);

// The text pieces (each ends with a newline).
std::string nccl_tests_column_titles();  // "#", the placement line, titles, units
std::string nccl_tests_line(const NcclTestsLine& line);
std::string nccl_tests_footer(const NcclTestsTable& table);  // out of bounds, avg bus bandwidth, "#"

// The lines before the tables: ringlab's command and run ("# ringlab bench: ..." or, for a predicted
// report, "# ringlab prediction: ..."), then nccl-tests' own header lines
// ("# Collective test starting: all_reduce_perf", the nThread/minBytes/... line), from a report's
// config (results may be empty: printed before the sweep starts). `gpus`: the backend runs its ranks
// on GPUs (nGpus 1), which the caller asks the backend registry.
std::string nccl_tests_preamble(const nlohmann::json& report, bool gpus);
// Every table with its "# Algorithm: NAME" line, then "# Collective test concluded".
std::string nccl_tests_text(const nlohmann::json& report);

}  // namespace ringlab::report
