// The model table and make_model: each model wrapped as a Predictor that owns it.
#include "simulator/predictor.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>
#include <stdexcept>

#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"

namespace ringlab::simulator {

namespace {
constexpr std::string_view flow_level_name = "flow-level";
constexpr std::string_view closed_form_name = "closed-form";
}  // namespace

std::span<const ModelInfo> models() {
  static constexpr ModelInfo table[] = {
      {flow_level_name, true, true, "discrete events, flows share each link max-min fairly"},
      {closed_form_name, false, false, "alpha-beta-gamma along each route, per-port, no contention"}};
  return table;
}

const ModelInfo& find_model(std::string_view name) {
  for (const ModelInfo& model : models())
    if (model.name == name) return model;
  throw std::invalid_argument(
      fmt::format("--model {} is not a model; pick {} or {}", name, flow_level_name, closed_form_name));
}

Predictor make_model(std::string_view name, const Topology& topology, double gamma_seconds_per_byte,
                     std::int64_t segment_bytes, bool record_trace, std::function<void(double)> progress) {
  const ModelInfo& model = find_model(name);
  if (model.name == flow_level_name) {
    FlowLevelOptions options;
    options.segment_bytes = segment_bytes;
    options.record_trace = record_trace;
    options.progress = std::move(progress);
    auto flow_level = std::make_shared<FlowLevelModel>(topology, gamma_seconds_per_byte, options);
    return {std::string(model.name),
            [flow_level](const Schedule& schedule, std::int64_t count, DataType type, ReduceOp, std::int64_t,
                         Placement placement) {
              return flow_level->predict(schedule, count, type, placement).prediction.seconds;
            },
            {},
            [flow_level](const Schedule& schedule, std::int64_t count, DataType type, Placement placement) {
              return flow_level->predict(schedule, count, type, placement);
            },
            [flow_level](const Schedule& schedule, std::int64_t count) {
              return flow_level->ranks_per_simulated_rank(schedule, count);
            }};
  }
  auto closed_form = std::make_shared<ClosedFormModel>(topology, gamma_seconds_per_byte);
  return {std::string(model.name),
          [closed_form](const Schedule& schedule, std::int64_t count, DataType type, ReduceOp, std::int64_t,
                        Placement placement) { return closed_form->predict(schedule, count, type, placement).seconds; },
          [closed_form](const Schedule& schedule) -> ScheduleSeconds {
            auto prepared = std::make_shared<const PreparedSchedule>(schedule);
            return [closed_form, prepared](std::int64_t count, DataType type, Placement placement) {
              return closed_form->predict(*prepared, count, type, placement).seconds;
            };
          },
          {}};
}

}  // namespace ringlab::simulator
