#include "simulator/workload_prediction.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab::simulator {

namespace {

Collective collective_of(training::PhaseKind kind) {
  switch (kind) {
    case training::PhaseKind::allgather: return Collective::allgather;
    case training::PhaseKind::reduce_scatter: return Collective::reduce_scatter;
    default: return Collective::allreduce;
  }
}

}  // namespace

bool algorithm_serves(const std::string& algorithm, training::ReplayMode mode) {
  const AlgorithmInfo& info = find_algorithm(algorithm);
  if (mode == training::ReplayMode::dp) return supports(info, Collective::allreduce);
  return supports(info, Collective::allreduce) && supports(info, Collective::allgather) &&
         supports(info, Collective::reduce_scatter);
}

WorkloadPredictor::WorkloadPredictor(const Topology& topology, const std::string& model, double gamma_seconds_per_byte,
                                     std::int64_t segment_bytes)
    : topology_(topology), model_(make_model(model, topology, gamma_seconds_per_byte, segment_bytes)) {}

double WorkloadPredictor::collective_seconds(const std::string& algorithm, Collective collective, int nranks,
                                             std::int64_t count) {
  const auto price_key = std::tuple{algorithm, collective, nranks, count};
  if (const auto found = prices_.find(price_key); found != prices_.end()) return found->second;
  const auto schedule_key = std::tuple{algorithm, collective, nranks};
  auto schedule = schedules_.find(schedule_key);
  if (schedule == schedules_.end())
    schedule = schedules_.emplace(schedule_key, make_schedule(algorithm, collective, nranks, AlgorithmOptions{})).first;
  const double seconds =
      model_.seconds(schedule->second, count, training::gradient_type, ReduceOp::sum, 0, Placement::out_of_place);
  prices_.emplace(price_key, seconds);
  return seconds;
}

IterationPrediction WorkloadPredictor::predict(const training::IterationPlan& plan, const std::string& algorithm) {
  if (plan.nranks > topology_.num_endpoints())
    throw std::invalid_argument(fmt::format("the plan has {} ranks but topology '{}' has {} endpoints",
                                            plan.nranks, topology_.name(), topology_.num_endpoints()));
  if (!algorithm_serves(algorithm, plan.mode))
    throw std::invalid_argument(fmt::format("algorithm '{}' has no reduce_scatter or allgather schedule for --mode {}",
                                            algorithm, name_of(plan.mode)));
  IterationPrediction prediction;
  for (const training::Phase& phase : plan.phases) {
    double seconds = phase.seconds;
    if (phase.kind != training::PhaseKind::compute) {
      seconds = plan.nranks == 1 ? 0.0 : collective_seconds(algorithm, collective_of(phase.kind), plan.nranks, phase.count);
      prediction.communication_seconds += seconds;
    } else {
      prediction.compute_seconds += seconds;
    }
    prediction.phase_seconds.push_back(seconds);
    prediction.iteration_seconds += seconds;
  }
  return prediction;
}

}  // namespace ringlab::simulator
