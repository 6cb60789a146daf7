#include "training_harness/train_report.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

namespace ringlab::training {

StepSummary mean_of_timed_steps(const TrainRunResult& result) {
  const std::size_t first = result.steps.size() > 1 ? 1 : 0;
  StepSummary mean;
  for (std::size_t s = first; s < result.steps.size(); ++s) {
    mean.iteration_seconds += result.steps[s].iteration_seconds;
    mean.compute_seconds += result.steps[s].compute_seconds;
    mean.communication_seconds += result.steps[s].communication_seconds;
    mean.idle_seconds += result.steps[s].idle_seconds;
  }
  const double count = static_cast<double>(result.steps.size() - first);
  mean.iteration_seconds /= count;
  mean.compute_seconds /= count;
  mean.communication_seconds /= count;
  mean.idle_seconds /= count;
  mean.loss = result.steps.back().loss;
  mean.accuracy = result.steps.back().accuracy;
  mean.step = static_cast<int>(count);
  return mean;
}

nlohmann::json make_train_report(const TrainRunContext& context, const TrainRunOptions& options,
                                 const TrainRunResult& result) {
  const TrainConfig& config = options.config;
  nlohmann::json steps = nlohmann::json::array();
  for (const StepSummary& step : result.steps)
    steps.push_back({{"step", step.step},
                     {"loss", step.loss},
                     {"accuracy", step.accuracy},
                     {"iteration_seconds", step.iteration_seconds},
                     {"compute_seconds", step.compute_seconds},
                     {"communication_seconds", step.communication_seconds},
                     {"idle_seconds", step.idle_seconds}});
  nlohmann::json collectives = nlohmann::json::object();
  for (const CollectiveUse& use : result.collectives)
    collectives[use.name] = {{"calls_per_step", use.calls_per_step}, {"bytes_per_step", use.bytes_per_step}};
  const StepSummary mean = mean_of_timed_steps(result);
  nlohmann::json auto_choices = nlohmann::json::array();  // --algo auto: per all-reduce size, what ran
  for (const SelectionChoice& choice : result.auto_choices) auto_choices.push_back(to_json(choice));
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return {
      {"schema", train_schema},
      {"date", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(now))},
      {"command", context.command},
      {"backend", context.backend},
      {"transport", context.transport},
      {"nranks", context.nranks},
      {"machine", report::to_json(context.machine)},
      {"compute", result.compute_name},
      {"config",
       {{"mode", name_of(config.mode)},
        {"algorithm", config.algorithm},
        {"model", config.model.describe()},
        {"global_batch", config.global_batch},
        {"local_batch", config.global_batch / context.nranks},
        {"steps", options.steps},
        {"learning_rate", config.sgd.learning_rate},
        {"momentum", config.sgd.momentum},
        {"weight_decay", config.sgd.weight_decay},
        {"seed", config.seed},
        {"bucket_bytes", config.bucket_bytes},
        {"data", result.data_description},
        {"data_records", result.data_records},
        {"compute", name_of(options.compute)}}},
      {"model",
       {{"backbone_parameters", result.parameters.backbone},
        {"head_parameters", result.parameters.head},
        {"backbone_macs_per_sample", result.parameters.backbone_macs_per_sample},
        {"head_macs_per_sample", result.parameters.head_macs_per_sample},
        {"gradient_buckets", result.gradient_buckets},
        {"parameter_abs_sum", result.parameter_checksum}}},
      {"collectives_per_step", collectives},
      {"auto_choices", auto_choices},
      {"steps", steps},
      {"summary",
       {{"timed_steps", mean.step},
        {"mean_iteration_seconds", mean.iteration_seconds},
        {"mean_compute_seconds", mean.compute_seconds},
        {"mean_communication_seconds", mean.communication_seconds},
        {"mean_idle_seconds", mean.idle_seconds},
        {"images_per_second", mean.iteration_seconds > 0 ? config.global_batch / mean.iteration_seconds : 0.0},
        {"final_loss", mean.loss},
        {"final_accuracy", mean.accuracy}}},
  };
}

std::string format_step_line(const StepSummary& step, int steps, int global_batch) {
  return fmt::format(
      "step {:>4}/{} loss {:.4f} acc {:.3f} | {:8.2f} ms (compute {:.2f}, comm {:.2f}, idle {:.2f}) | {:.1f} img/s",
      step.step + 1, steps, step.loss, step.accuracy, step.iteration_seconds * 1e3, step.compute_seconds * 1e3,
      step.communication_seconds * 1e3, step.idle_seconds * 1e3,
      step.iteration_seconds > 0 ? global_batch / step.iteration_seconds : 0.0);
}

}  // namespace ringlab::training
