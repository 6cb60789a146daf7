// The table `ringlab bench` and `ringlab simulate` print and the ringlab.bench/1 JSON report of a sweep
// (plotting/ringlab.bench.schema.json, docs/bench-report-format.md): the result rows (report/) under
// the header and config of the bench's options, which is why this stays with the bench.
#pragma once

#include <cstdio>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/src/bench_options.hpp"
#include "report/machine_info.hpp"
#include "report/rank_placement.hpp"
#include "report/result_row.hpp"

namespace ringlab::bench {

inline constexpr const char* bench_schema = "ringlab.bench/1";

// Set for a prediction (report kind "predicted"): which model priced the schedules, on what.
struct ModelDescription {
  std::string name;      // e.g. "closed-form"
  std::string topology;  // preset string or file name
  double gamma_seconds_per_byte = 0;
};

struct RunDescription {
  std::string command;
  std::string backend;
  std::string transport;  // how messages travel, e.g. "shared memory between the 2 ranks of this host (...)"
  int nranks = 1;
  report::MachineInfo machine;
  std::vector<std::string> notes;
  std::optional<ModelDescription> model;  // empty: measured
  std::string buffers;  // how the buffers were allocated (SweepBuffers::description); empty for predictions
  // Measured runs: the CPUs each rank may run on (rank_placement.hpp) and that in words.
  std::vector<std::string> rank_cpus;
  std::string placement;
  // Measured runs: whether the placement is oversubscribed or bound (judge_placement); empty for
  // predictions. The header's "# oversubscribed:" or "# placement:" line and config's fields.
  std::optional<report::PlacementVerdict> verdict = {};
};

void print_header(std::FILE* out, const RunDescription& run, const BenchOptions& options);
// The two column-title lines of the table (print_header ends with them); `ci` (--ci) adds the
// median and its 95 % interval for each placement.
void print_column_titles(std::FILE* out, bool ci = false);
// One line per algorithm: out-of-place then in-place columns.
void print_size_rows(std::FILE* out, const std::vector<report::ResultRow>& rows, const BenchOptions& options);
// "# not converged: ..." naming every row --converge gave up on (nothing when there is none).
void print_not_converged(std::FILE* out, const std::vector<report::ResultRow>& rows);
// "Avg bus bandwidth" per algorithm and the ratio to the baseline, then print_not_converged.
void print_footer(std::FILE* out, const std::vector<report::ResultRow>& rows, const BenchOptions& options);

nlohmann::json make_report(const RunDescription& run, const BenchOptions& options,
                           const std::vector<report::ResultRow>& rows, bool complete);

}  // namespace ringlab::bench
