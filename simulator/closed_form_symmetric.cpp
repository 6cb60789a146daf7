// Shortcut: a circulant schedule with equal chunks (count a multiple of nchunks) on a network where
// each offset it uses costs the same from every rank (RouteCosts::uniform_cost). It equals the
// walk because every rank then carries the same loads in every step, so every rank's step clock
// reads the same finishes and ends at the same time: rank 0's steps alone are priced, O(steps x
// ops) instead of O(steps x ops x N), and every rank is given rank 0's finish
// (Prediction::ranks_alike). Nothing when those conditions do not hold.
#include <optional>
#include <vector>

#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {

std::optional<Prediction> ClosedFormModel::predict_symmetric(const Schedule& schedule, std::int64_t count,
                                                            DataType type) {
  if (!schedule.circulant || schedule.nranks != route_costs_.topology().num_endpoints() ||
      count % schedule.nchunks != 0)
    return std::nullopt;
  const double chunk_bytes = static_cast<double>(count / schedule.nchunks) * static_cast<double>(element_size(type));
  const std::vector<Step>& steps = schedule.programs.front().steps;
  const std::optional<TemplateRoutes> routes = template_routes(schedule, route_costs_);
  if (!routes) return std::nullopt;
  double finish = 0;
  for (std::size_t step = 0; step < steps.size(); ++step) {
    // Every rank's ports carry the same in this step, so max(out(sender), in(receiver)) is max(out, in).
    double outgoing_seconds = 0;
    double incoming_seconds = 0;
    double reduced_bytes = 0;
    for (std::size_t i = 0; i < steps[step].size(); ++i) {
      const Op& op = steps[step][i];
      const double bytes = static_cast<double>(op.chunks.size()) * chunk_bytes;
      (op.kind == OpKind::send ? outgoing_seconds : incoming_seconds) += bytes * routes->of(step)[i].seconds_per_byte;
      if (op.kind == OpKind::recv_reduce) reduced_bytes += bytes;
    }
    StepClock clock(finish);
    for (const RouteCost& route : routes->of(step))
      clock.transfer(finish, finish, route.latency_seconds, outgoing_seconds, incoming_seconds);
    finish = clock.advance(gamma_seconds_per_byte_ * reduced_bytes);
  }
  Prediction prediction;
  prediction.steps = static_cast<int>(steps.size());
  prediction.seconds = finish;
  prediction.rank_finish_seconds.assign(static_cast<std::size_t>(schedule.nranks), finish);
  prediction.ranks_alike = true;
  return prediction;
}

}  // namespace ringlab::simulator
