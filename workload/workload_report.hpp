// What `ringlab replay` (measured) and `ringlab simulate --workload` (predicted) print and write:
// per (algorithm, mode) the iteration time and its compute / communication / idle split, the
// collectives' calls and bytes per iteration, and the speed-up of hybrid over dp per algorithm.
// The ringlab.replay/1 report is documented in docs/training.md.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collectives/selection_table.hpp"
#include "report/machine_info.hpp"
#include "workload/workload.hpp"
#include "workload/workload_plan.hpp"
#include "workload/workload_profile.hpp"

namespace ringlab::training {

inline constexpr const char* replay_schema = "ringlab.replay/1";

struct IterationTimes {
  double iteration_seconds = 0;      // the slowest rank
  double compute_seconds = 0;        // mean over ranks, outside collectives
  double communication_seconds = 0;  // least time any rank spent in collectives
  double idle_seconds = 0;           // mean time in collectives beyond that least
};

// Means over the iterations after the first (the first also warms up); with one, that one.
IterationTimes mean_after_first(const std::vector<IterationTimes>& iterations);
// Median iteration time over the same iterations: robust to the outliers a shared machine gives.
double median_iteration_after_first(const std::vector<IterationTimes>& iterations);

struct ModeResult {
  std::string algorithm;
  ReplayMode mode = ReplayMode::dp;
  bool available = true;
  std::string note;  // why not available
  IterationTimes mean;
  double median_iteration_seconds = 0;  // measured: of the iterations after the first; predicted: = mean
  double planned_compute_seconds = 0;  // from the profile
  PhaseTotals allreduce, allgather, reduce_scatter;  // per iteration
  std::vector<IterationTimes> iterations;            // measured runs only
  std::vector<SelectionChoice> auto_choices;         // --algo auto: what each all-reduce size ran
};

struct WorkloadRunDescription {
  bool predicted = false;
  std::string command;
  int nranks = 1;
  report::MachineInfo machine;
  nlohmann::json execution;  // measured: backend, transport; predicted: model, topology, gamma
  const Workload* workload = nullptr;
  const ComputeProfile* profile = nullptr;
  int global_batch = 0;
  int iterations = 1;
  std::size_t bucket_bytes = 0;
};

struct Speedup {
  std::string algorithm;
  double dp_seconds = 0, hybrid_seconds = 0;                // mean iteration times
  double dp_median_seconds = 0, hybrid_median_seconds = 0;  // median iteration times
  double ratio() const { return dp_seconds / hybrid_seconds; }  // > 1: hybrid is faster
  double median_ratio() const { return dp_median_seconds / hybrid_median_seconds; }
};
std::vector<Speedup> speedups(const std::vector<ModeResult>& results);

nlohmann::json make_workload_report(const WorkloadRunDescription& run, const std::vector<ModeResult>& results);

void print_workload_header(std::FILE* out, const WorkloadRunDescription& run);
void print_workload_table(std::FILE* out, const std::vector<ModeResult>& results);

}  // namespace ringlab::training
