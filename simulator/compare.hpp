// `ringlab compare`: measured bench reports (ringlab.bench/1, kind measured) against model
// predictions (docs/compare.md). Steps:
//   1. read each report: config (nranks, datatype, op, algorithms) and rows (algorithm, size, count,
//      type, redop, placement, time_us.p50 = the median call);
//   2. for every row of an algorithm with a schedule, build the schedule the bench ran
//      (make_schedule(algorithm, allreduce, N), default options) once per (algorithm, N), and ask
//      every Predictor for the time of that schedule on the row's count, type, op and placement
//      and the report's segment size (the op sets the reduction's gamma: type_op_gamma.hpp);
//   3. relative error = (predicted - measured) / measured per row and model;
//   4. per (algorithm, N, model): median and p90 (nearest rank) of |error| over the rows with
//      size >= min_bytes, both placements counted.
// A model is a Predictor (a name and a function, predictor.hpp), so a second model is one more entry.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/datatype.hpp"
#include "simulator/job_footprint.hpp"
#include "simulator/predictor.hpp"
#include "collectives/schedule.hpp"

namespace ringlab::simulator {

struct MeasuredRow {
  std::string algorithm;
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  Placement placement = Placement::out_of_place;
  double measured_seconds = 0;  // time_us.p50
  DataType type = DataType::float32;  // the row's type, else config.datatype
  ReduceOp op = ReduceOp::sum;        // the row's redop, else config.op (sum when neither says)
  // A bench --algo auto row: what its tuning table chose (the row's "auto" object).
  std::optional<std::string> auto_algorithm = std::nullopt;
  std::optional<std::int64_t> auto_segment_bytes = std::nullopt;
  // The schedule that ran: the chosen one for an auto row, else `algorithm`.
  const std::string& ran_algorithm() const { return auto_algorithm ? *auto_algorithm : algorithm; }
};

struct MeasuredReport {
  std::string path;
  int nranks = 0;
  DataType type = DataType::float32;  // config.datatype
  ReduceOp op = ReduceOp::sum;        // config.op
  std::int64_t segment_bytes = std::int64_t{1} << 20;  // config.segment_bytes (the bench's default when absent)
  std::vector<std::string> rank_cpus;  // config.rank_cpus: each rank's CPUs (empty when not recorded)
  std::string backend;                 // config.backend ("nccl" for nccl-tests output)
  // The options its rows' schedules are built with: the defaults, but for NCCL's runs (backend
  // "nccl") the caller's topology's ranks per node as the group size, since NCCL lays its rings and
  // trees out by node (`compare` sets it).
  AlgorithmOptions algorithm_options;
  std::vector<MeasuredRow> rows;
};

// Throws std::invalid_argument naming the file and what is wrong: not JSON, not ringlab.bench/1,
// a predicted report, a missing or mistyped field, a run with --root/--shards (the config does
// not record them, so the schedule it ran is unknown), a value outside its range: config.nranks
// in [1, 2^20], config.segment_bytes, results[].size_bytes and .count in [0, 2^40],
// results[].time_us.p50 in (0, 1e9] us; integers are checked before narrowing. The file must hold
// one JSON document (io/json_input.hpp); algorithm names and rank_cpus are escaped (io/printable.hpp).
// The file may also hold nccl-tests' all_reduce_perf output, text or -J JSON
// (report/nccl_tests_input.hpp): its rows are priced as `nccl_tests_algorithm`'s schedule.
MeasuredReport read_measured_report(const std::string& path, const std::string& nccl_tests_algorithm = "ring");
// The same for a document already parsed; `path` names it in messages (the fuzz target's entry).
MeasuredReport measured_report_from_json(const nlohmann::json& document, const std::string& path);

struct ComparedRow {
  std::string report;
  int nranks = 0;
  MeasuredRow measured;  // with its type and op
  std::vector<double> predicted_seconds;  // per predictor
  std::vector<double> relative_error;     // per predictor
};

struct ErrorSummary {
  std::string algorithm;
  int nranks = 0;
  std::string model;
  int rows = 0;  // rows with size >= min_bytes
  double median_abs_error = 0;
  double p90_abs_error = 0;
};

struct Comparison {
  std::vector<std::string> models;
  std::vector<ComparedRow> rows;
  std::vector<ErrorSummary> summaries;
  std::vector<std::string> notes;  // e.g. algorithms without a schedule that were left out
};

// Rows without a schedule (mpi-native) are left out with a note.
Comparison compare_reports(const std::vector<MeasuredReport>& reports, const std::vector<Predictor>& predictors,
                           std::int64_t min_bytes);

// The ringlab.compare/1 document (docs/compare.md); `context` (command, topology, ...) is merged in.
nlohmann::json compare_to_json(const Comparison& comparison, std::int64_t min_bytes, const nlohmann::json& context);

}  // namespace ringlab::simulator
