// The nccl-tests-shaped table and the ringlab.bench/1 JSON report (plotting/ringlab.bench.schema.json,
// docs/bench-report-format.md).
#pragma once

#include <cstdio>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "machine_info.hpp"
#include "sweep.hpp"

namespace ringlab::bench {

inline constexpr const char* bench_schema = "ringlab.bench/1";

struct RunDescription {
  std::string command;
  std::string backend;
  std::string transport;  // how messages travel, e.g. "shared memory between the 2 ranks of this host (...)"
  int nranks = 1;
  MachineInfo machine;
  std::vector<std::string> notes;
};

void print_header(std::FILE* out, const RunDescription& run, const BenchOptions& options);
// One line per algorithm: out-of-place then in-place columns.
void print_size_rows(std::FILE* out, const std::vector<ResultRow>& rows, const BenchOptions& options);
// "Avg bus bandwidth" per algorithm and the ratio to the baseline.
void print_footer(std::FILE* out, const std::vector<ResultRow>& rows, const BenchOptions& options);

nlohmann::json make_report(const RunDescription& run, const BenchOptions& options, const std::vector<ResultRow>& rows,
                           bool complete);

// Refuses an existing file unless `force` (checked before the sweep starts).
void check_output_path(const std::string& path, bool force);
// Writes to a temporary file in the same folder, then renames it over `path`.
void write_report(const std::string& path, const nlohmann::json& report);

}  // namespace ringlab::bench
