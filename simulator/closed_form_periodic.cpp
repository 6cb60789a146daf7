// Shortcut: a circulant schedule on a network whose declared rank symmetry holds
// (RouteCosts::symmetric: torus2d, ring, dragonfly, nvswitch with whole units) but where an offset
// it uses costs differently from different ranks (torus2d: a partner one rank on costs one hop
// within a row, two from a row's last column). Rank r reaches r + offset at the cost rank r + P
// does (P = RouteCosts::offset_period, the torus's row length, a dragonfly's group), and ranks
// loads_period apart carry the same loads, so ranks lcm(P, loads period) apart run alike: only
// that many are walked, step by step on the step clock, each op's cost per walked rank from the
// route table, with the same sums in the same order as the walk (closed_form_walk.cpp) and so its
// result to the last bit. Nothing when the schedule is not circulant, the symmetry does not hold,
// or the period does not divide N (then: the walk).
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {

std::optional<Prediction> ClosedFormModel::predict_periodic(const Schedule& schedule, std::int64_t count,
                                                           DataType type) {
  const int nranks = schedule.nranks;
  if (!schedule.circulant || nranks != route_costs_.topology().num_endpoints() || !route_costs_.symmetric())
    return std::nullopt;
  const std::int64_t nchunks = schedule.nchunks;
  const std::int64_t chunk_shift = nchunks / nranks;
  const std::size_t period = std::lcm(loads_period(nranks, nchunks, count), static_cast<std::size_t>(route_costs_.offset_period()));
  if (static_cast<std::size_t>(nranks) % period != 0) return std::nullopt;
  const std::size_t slots = period;  // rank r + slots runs exactly as rank r
  const auto bytes_per_element = static_cast<double>(element_size(type));
  std::vector<std::int64_t> starts(static_cast<std::size_t>(nchunks) + 1);
  for (std::size_t chunk = 0; chunk < starts.size(); ++chunk)
    starts[chunk] = chunk_start(static_cast<std::int64_t>(chunk), count, nchunks);
  // Each (kind, offset)'s route from every walked rank: a send's to rank + offset, a receive's from it.
  std::map<std::pair<bool, int>, std::vector<RouteCost>> costs_of;
  const auto costs = [&](const Op& op) -> const std::vector<RouteCost>& {
    const bool sending = op.kind == OpKind::send;
    std::vector<RouteCost>& found = costs_of[{sending, op.peer}];
    if (found.empty()) {
      found.resize(slots);
      for (std::size_t rank = 0; rank < slots; ++rank) {
        const int self = static_cast<int>(rank);
        const int peer = static_cast<int>((rank + static_cast<std::size_t>(op.peer)) % static_cast<std::size_t>(nranks));
        found[rank] = sending ? route_costs_.between(self, peer) : route_costs_.between(peer, self);
      }
    }
    return found;
  };
  const std::vector<Step>& steps = schedule.programs.front().steps;
  std::vector<double> outgoing(slots), incoming(slots), reduced(slots);
  std::vector<double> finish(slots, 0.0), next_finish(slots, 0.0);
  std::vector<const std::vector<RouteCost>*> step_routes;
  for (const Step& step : steps) {
    step_routes.clear();
    for (const Op& op : step) step_routes.push_back(&costs(op));
    std::fill(outgoing.begin(), outgoing.end(), 0.0);
    std::fill(incoming.begin(), incoming.end(), 0.0);
    std::fill(reduced.begin(), reduced.end(), 0.0);
    for (std::size_t i = 0; i < step.size(); ++i) {  // each rank's port sums in its op order
      const Op& op = step[i];
      const std::vector<RouteCost>& route = *step_routes[i];
      std::vector<double>& port = op.kind == OpKind::send ? outgoing : incoming;
      std::int64_t begin = op.chunks.begin % nchunks;
      for (std::size_t rank = 0; rank < slots; ++rank) {
        const std::int64_t end = begin + op.chunks.size();
        const std::int64_t elements =
            end <= nchunks ? starts[static_cast<std::size_t>(end)] - starts[static_cast<std::size_t>(begin)]
                           : count - starts[static_cast<std::size_t>(begin)] + starts[static_cast<std::size_t>(end - nchunks)];
        const double bytes = static_cast<double>(elements) * bytes_per_element;
        port[rank] += bytes * route[rank].seconds_per_byte;
        if (op.kind == OpKind::recv_reduce) reduced[rank] += bytes;
        begin = begin + chunk_shift < nchunks ? begin + chunk_shift : begin + chunk_shift - nchunks;
      }
    }
    for (std::size_t self = 0; self < slots; ++self) {
      StepClock clock(finish[self]);
      for (std::size_t i = 0; i < step.size(); ++i) {
        const Op& op = step[i];
        const std::vector<RouteCost>& route = *step_routes[i];
        const std::size_t peer = (self + static_cast<std::size_t>(op.peer)) % slots;
        if (op.kind == OpKind::send)
          clock.transfer(finish[self], finish[peer], route[self].latency_seconds, outgoing[self], incoming[peer]);
        else
          clock.transfer(finish[peer], finish[self], route[self].latency_seconds, outgoing[peer], incoming[self]);
      }
      next_finish[self] = clock.advance(gamma_seconds_per_byte_ * reduced[self]);
    }
    finish.swap(next_finish);
  }
  Prediction prediction;
  prediction.steps = static_cast<int>(steps.size());
  prediction.seconds = finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
  prediction.rank_finish_seconds.resize(static_cast<std::size_t>(nranks));
  for (std::size_t rank = 0; rank < prediction.rank_finish_seconds.size(); ++rank)
    prediction.rank_finish_seconds[rank] = finish[rank % slots];
  return prediction;
}

}  // namespace ringlab::simulator
