#include "simulator/closed_form.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "simulator/closed_form_alike.hpp"
#include "simulator/closed_form_ops.hpp"
#include "simulator/job_footprint.hpp"
#include "simulator/schedule_walk.hpp"

namespace ringlab::simulator {

ClosedFormModel::ClosedFormModel(const Topology& topology, double gamma_seconds_per_byte)
    : route_costs_(topology), gamma_seconds_per_byte_(gamma_seconds_per_byte) {
  if (!(gamma_seconds_per_byte >= 0) || !std::isfinite(gamma_seconds_per_byte))
    throw std::invalid_argument(
        fmt::format("gamma must be a finite number of seconds per byte >= 0, not {}", gamma_seconds_per_byte));
}

double gamma_at_footprint(const Topology& topology, double gamma_seconds_per_byte, double footprint_bytes) {
  const FootprintCurve& curve = topology.footprint_curves().gamma_seconds_per_byte;
  if (curve.empty() || topology.gamma_seconds_per_byte() != gamma_seconds_per_byte) return gamma_seconds_per_byte;
  return curve.at(footprint_bytes);
}

ClosedFormModel& ClosedFormModel::at_footprint(double footprint_bytes) {
  if (footprint_model_ && cached_footprint_bytes_ == footprint_bytes) return *footprint_model_;
  const Topology& topology = route_costs_.topology();
  footprint_model_.reset();
  footprint_topology_ = std::make_unique<Topology>(topology.at_footprint(footprint_bytes));
  footprint_model_ = std::make_unique<ClosedFormModel>(
      *footprint_topology_, gamma_at_footprint(topology, gamma_seconds_per_byte_, footprint_bytes));
  cached_footprint_bytes_ = footprint_bytes;
  return *footprint_model_;
}

namespace {

// Whether `op` may extend `before`: one kind and peer, its chunks (a valid range) starting where
// before's end, the two within one buffer.
bool joins(const Op& before, const Op& op, std::int64_t nchunks) {
  return before.kind == op.kind && before.peer == op.peer && before.chunks.end == op.chunks.begin &&
         op.chunks.begin < nchunks && op.chunks.end > op.chunks.begin &&
         op.chunks.end - before.chunks.begin <= nchunks;
}

// A step's ops with each joined to the first earlier op it extends.
Step joined_step(const Step& step, std::int64_t nchunks) {
  Step ops;
  for (const Op& op : step) {
    const auto found =
        std::find_if(ops.begin(), ops.end(), [&](const Op& before) { return joins(before, op, nchunks); });
    if (found != ops.end()) found->chunks.end = op.chunks.end;
    else ops.push_back(op);
  }
  return ops;
}

}  // namespace

std::optional<Schedule> joined_transfers(const Schedule& schedule) {
  if (!schedule.circulant) return std::nullopt;
  const std::vector<Step>& steps = schedule.programs.front().steps;
  const auto any_join = [&](const Step& step) {
    for (std::size_t i = 1; i < step.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (joins(step[j], step[i], schedule.nchunks)) return true;
    return false;
  };
  if (std::none_of(steps.begin(), steps.end(), any_join)) return std::nullopt;
  Schedule joined{schedule.algorithm, schedule.collective, schedule.nranks, schedule.nchunks, schedule.root, true, {}};
  RankProgram& program = joined.programs.emplace_back();
  program.steps.reserve(steps.size());
  for (const Step& step : steps) program.steps.push_back(joined_step(step, schedule.nchunks));
  return joined;
}

PreparedSchedule::PreparedSchedule(const Schedule& schedule, std::optional<CompactSchedule> compact)
    : schedule_(schedule), compact_(std::move(compact)), joined_(joined_transfers(schedule)) {}

// A circulant template with its ops joined (prepared.priced()), then the shortcuts, each where it
// equals the walk (closed_form_symmetric.cpp, closed_form_circulant.cpp, closed_form_periodic.cpp,
// closed_form_compact.cpp, closed_form_alike.cpp), else the walk.
Prediction ClosedFormModel::predict(const PreparedSchedule& prepared, std::int64_t count, DataType type,
                                    Placement placement) {
  const Schedule& schedule = prepared.schedule();
  if (!route_costs_.topology().footprint_curves().empty()) {
    check_schedule(schedule, route_costs_.topology(), count);
    return at_footprint(job_footprint_bytes(schedule, count, type, placement)).predict(prepared, count, type, placement);
  }
  if (const double in_place = in_place_gamma(route_costs_.topology(), gamma_seconds_per_byte_);
      in_place != gamma_seconds_per_byte_) {  // the operand forms priced apart
    if (placement == Placement::in_place) {
      if (!in_place_model_) in_place_model_ = std::make_unique<ClosedFormModel>(route_costs_.topology(), in_place);
      return in_place_model_->predict(prepared, count, type);
    }
    check_schedule(schedule, route_costs_.topology(), count, OpChecks::header_only);  // ops: in pass 1
    ReductionForms forms{ScratchReceives(schedule.nranks, count, schedule.nchunks,
                                         std::numeric_limits<std::int64_t>::max(), Placement::out_of_place),
                         in_place, static_cast<double>(element_size(type))};
    return predict_walk(schedule, OpBytes(schedule, count, type), &forms);
  }
  check_schedule(schedule, route_costs_.topology(), count, OpChecks::header_only);  // ops: when packed, or in pass 1
  const Schedule& priced = prepared.priced();
  if (std::optional<Prediction> symmetric = predict_symmetric(priced, count, type)) return *std::move(symmetric);
  if (std::optional<Prediction> circulant = predict_circulant(priced, count, type)) return *std::move(circulant);
  if (std::optional<Prediction> periodic = predict_periodic(priced, count, type)) return *std::move(periodic);
  if (const CompactSchedule* compact = prepared.compact()) return predict_compact(schedule, *compact, count, type);
  const OpBytes bytes_of(priced, count, type);
  if (std::optional<Prediction> alike = predict_alike(priced, route_costs_, gamma_seconds_per_byte_, bytes_of))
    return *std::move(alike);
  return predict_walk(priced, bytes_of);
}

}  // namespace ringlab::simulator
