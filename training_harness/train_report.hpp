// The ringlab.train/1 JSON report (docs/training.md) and the per-step log line.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "report/machine_info.hpp"
#include "training_harness/train_run.hpp"

namespace ringlab::training {

inline constexpr const char* train_schema = "ringlab.train/1";

struct TrainRunContext {
  std::string command;
  std::string backend;
  std::string transport;
  int nranks = 1;
  report::MachineInfo machine;
};

// Means over the steps after the first (the first step also allocates); with one step, that step.
StepSummary mean_of_timed_steps(const TrainRunResult& result);

nlohmann::json make_train_report(const TrainRunContext& context, const TrainRunOptions& options,
                                 const TrainRunResult& result);

std::string format_step_line(const StepSummary& step, int steps, int global_batch);

}  // namespace ringlab::training
