#include "workload/workload_report.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace ringlab::training {

IterationTimes mean_after_first(const std::vector<IterationTimes>& iterations) {
  IterationTimes mean;
  if (iterations.empty()) return mean;
  const std::size_t first = iterations.size() > 1 ? 1 : 0;
  for (std::size_t i = first; i < iterations.size(); ++i) {
    mean.iteration_seconds += iterations[i].iteration_seconds;
    mean.compute_seconds += iterations[i].compute_seconds;
    mean.communication_seconds += iterations[i].communication_seconds;
    mean.idle_seconds += iterations[i].idle_seconds;
  }
  const double count = static_cast<double>(iterations.size() - first);
  mean.iteration_seconds /= count;
  mean.compute_seconds /= count;
  mean.communication_seconds /= count;
  mean.idle_seconds /= count;
  return mean;
}

double median_iteration_after_first(const std::vector<IterationTimes>& iterations) {
  if (iterations.empty()) return 0;
  std::vector<double> times;
  for (std::size_t i = iterations.size() > 1 ? 1 : 0; i < iterations.size(); ++i)
    times.push_back(iterations[i].iteration_seconds);
  std::sort(times.begin(), times.end());
  const std::size_t middle = times.size() / 2;
  return times.size() % 2 == 1 ? times[middle] : 0.5 * (times[middle - 1] + times[middle]);
}

std::vector<Speedup> speedups(const std::vector<ModeResult>& results) {
  std::vector<Speedup> found;
  for (const ModeResult& dp : results) {
    if (dp.mode != ReplayMode::dp || !dp.available) continue;
    for (const ModeResult& hybrid : results)
      if (hybrid.mode == ReplayMode::hybrid && hybrid.available && hybrid.algorithm == dp.algorithm)
        found.push_back({dp.algorithm, dp.mean.iteration_seconds, hybrid.mean.iteration_seconds,
                         dp.median_iteration_seconds, hybrid.median_iteration_seconds});
  }
  return found;
}

namespace {

nlohmann::json to_json(const IterationTimes& times) {
  return {{"iteration_seconds", times.iteration_seconds},
          {"compute_seconds", times.compute_seconds},
          {"communication_seconds", times.communication_seconds},
          {"idle_seconds", times.idle_seconds}};
}

nlohmann::json to_json(const PhaseTotals& totals) { return {{"calls", totals.calls}, {"bytes", totals.bytes}}; }

nlohmann::json to_json(const ModeResult& result) {
  nlohmann::json entry = {{"algorithm", result.algorithm}, {"mode", name_of(result.mode)},
                          {"available", result.available}};
  if (!result.available) {
    entry["note"] = result.note;
    return entry;
  }
  entry["mean"] = to_json(result.mean);
  entry["median_iteration_seconds"] = result.median_iteration_seconds;
  entry["planned_compute_seconds"] = result.planned_compute_seconds;
  entry["collectives_per_iteration"] = {{"allreduce", to_json(result.allreduce)},
                                        {"allgather", to_json(result.allgather)},
                                        {"reduce_scatter", to_json(result.reduce_scatter)}};
  nlohmann::json iterations = nlohmann::json::array();
  for (const IterationTimes& times : result.iterations) iterations.push_back(to_json(times));
  entry["iterations"] = iterations;
  if (!result.auto_choices.empty()) {
    nlohmann::json choices = nlohmann::json::array();
    for (const SelectionChoice& choice : result.auto_choices) choices.push_back(ringlab::to_json(choice));
    entry["auto_choices"] = choices;
  }
  return entry;
}

}  // namespace

nlohmann::json make_workload_report(const WorkloadRunDescription& run, const std::vector<ModeResult>& results) {
  const Workload& workload = *run.workload;
  nlohmann::json entries = nlohmann::json::array();
  for (const ModeResult& result : results) entries.push_back(to_json(result));
  nlohmann::json ratios = nlohmann::json::array();
  for (const Speedup& speedup : speedups(results))
    ratios.push_back({{"algorithm", speedup.algorithm},
                      {"dp_iteration_seconds", speedup.dp_seconds},
                      {"hybrid_iteration_seconds", speedup.hybrid_seconds},
                      {"speedup", speedup.ratio()},
                      {"dp_median_iteration_seconds", speedup.dp_median_seconds},
                      {"hybrid_median_iteration_seconds", speedup.hybrid_median_seconds},
                      {"speedup_of_medians", speedup.median_ratio()}});
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return {{"schema", replay_schema},
          {"kind", run.predicted ? "predicted" : "measured"},
          {"date", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(now))},
          {"command", run.command},
          {"nranks", run.nranks},
          {"machine", report::to_json(run.machine)},
          {"execution", run.execution},
          {"config",
           {{"workload", workload.name},
            {"global_batch", run.global_batch},
            {"local_batch", run.global_batch / run.nranks},
            {"iterations", run.iterations},
            {"bucket_bytes", run.bucket_bytes}}},
          {"workload",
           {{"name", workload.name},
            {"image_size", workload.image_size},
            {"classes", workload.classes},
            {"layers", workload.layers.size()},
            {"backbone_parameters", workload.backbone_parameters()},
            {"head_parameters", workload.head_parameters()},
            {"feature_elements", workload.feature_elements()},
            {"forward_macs_per_sample", workload.forward_macs_per_sample()}}},
          {"profile", to_json(*run.profile)},
          {"results", entries},
          {"speedups", ratios}};
}

void print_workload_header(std::FILE* out, const WorkloadRunDescription& run) {
  const Workload& workload = *run.workload;
  fmt::print(out, "# ringlab {}: {}\n", run.predicted ? "simulate" : "replay", run.command);
  fmt::print(out, "# {} ({}x{}, {} classes): backbone {} parameters, head {} parameters, {} features, {:.3g} MAC/sample\n",
             workload.name, workload.image_size, workload.image_size, workload.classes, workload.backbone_parameters(),
             workload.head_parameters(), workload.feature_elements(), workload.forward_macs_per_sample());
  fmt::print(out, "# {} ranks | global batch {} ({} per rank) | bucket {} B | {}\n", run.nranks, run.global_batch,
             run.global_batch / run.nranks, run.bucket_bytes, run.execution.dump());
  fmt::print(out, "# compute profile: {}\n", run.profile->source);
}

void print_workload_table(std::FILE* out, const std::vector<ModeResult>& results) {
  fmt::print(out, "# {:<20} {:<6} {:>12} {:>10} {:>11} {:>10} {:>9} {:>13} {:>13} {:>13}\n", "algorithm", "mode",
             "iteration ms", "median ms", "compute ms", "comm ms", "idle ms", "allreduce B", "allgather B", "red-scat B");
  for (const ModeResult& r : results) {
    if (!r.available) {
      fmt::print(out, "  {:<20} {:<6} not available: {}\n", r.algorithm, name_of(r.mode), r.note);
      continue;
    }
    fmt::print(out, "  {:<20} {:<6} {:>12.2f} {:>10.2f} {:>11.2f} {:>10.2f} {:>9.2f} {:>13} {:>13} {:>13}\n", r.algorithm,
               name_of(r.mode), r.mean.iteration_seconds * 1e3, r.median_iteration_seconds * 1e3,
               r.mean.compute_seconds * 1e3,
               r.mean.communication_seconds * 1e3, r.mean.idle_seconds * 1e3, r.allreduce.bytes, r.allgather.bytes,
               r.reduce_scatter.bytes);
  }
  for (const Speedup& s : speedups(results))
    fmt::print(out,
               "# speed-up of hybrid over dp, {}: {:.3f}x (dp {:.2f} ms / hybrid {:.2f} ms, {:+.1f} %); of the "
               "medians {:.3f}x\n",
               s.algorithm, s.ratio(), s.dp_seconds * 1e3, s.hybrid_seconds * 1e3, 100 * (s.ratio() - 1),
               s.median_ratio());
}

}  // namespace ringlab::training
