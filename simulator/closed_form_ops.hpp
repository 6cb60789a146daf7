// What the closed form's walk and its shortcuts share (closed_form*.cpp; internal to the model):
// an op's bytes, an op's port load, the routes of a network where every pair of ranks costs alike,
// and a circulant template's route costs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "collectives/datatype.hpp"
#include "simulator/route_costs.hpp"
#include "collectives/schedule.hpp"

namespace ringlab::simulator {

// The route cost of each op of a circulant template, step after step (a send's receiver and a
// receive's sender both sit at +peer), in one array; nothing when an offset the template uses
// costs differently from different ranks.
struct TemplateRoutes {
  std::vector<RouteCost> costs;
  std::vector<std::size_t> first;  // [step]: its first op's index in costs; one more entry at the end
  std::span<const RouteCost> of(std::size_t step) const {
    return {costs.data() + first[step], costs.data() + first[step + 1]};
  }
};
inline std::optional<TemplateRoutes> template_routes(const Schedule& schedule, RouteCosts& route_costs) {
  const std::vector<Step>& steps = schedule.programs.front().steps;
  TemplateRoutes routes;
  routes.first.reserve(steps.size() + 1);
  for (const Step& step : steps) {
    routes.first.push_back(routes.costs.size());
    for (const Op& op : step) {
      const std::optional<RouteCost> cost =
          route_costs.uniform_cost(op.kind == OpKind::send ? op.peer : schedule.nranks - op.peer);
      if (!cost) return std::nullopt;
      routes.costs.push_back(*cost);
    }
  }
  routes.first.push_back(routes.costs.size());
  return routes;
}

// A circulant template with, in each step, the ops of one kind and peer whose chunk ranges follow
// one another made one (nccl_ring's C channels of a slice: one op). The closed form prices ops of
// one kind and peer alike however they are cut: their bytes share the same port at the same route
// cost, each transfer ends at latency + the ports' maximum, and reduced bytes add. Nothing when no
// two ops join. (closed_form.cpp)
std::optional<Schedule> joined_transfers(const Schedule& schedule);

// For each step of a circulant template: q when the step is the step before it moved by q ranks
// (same op kinds, peers and widths, every chunk range shifted by q * nchunks / nranks), i.e. when
// rank r's costs in this step are rank r + q's in the step before; nothing otherwise. run_end:
// the first step after `step` that turns otherwise; any: whether some run has two steps or more.
// (closed_form_circulant.cpp)
struct RotatedSteps {
  std::vector<std::optional<std::int64_t>> rotation;
  std::vector<std::size_t> run_end;
  bool any = false;
};
RotatedSteps rotated_steps(const Schedule& schedule);

// An op's bytes at `count` elements of `type`: element_count(range, count, nchunks) from a table
// of chunk starts, without its divisions. Equal chunks (count a multiple of nchunks): the width
// alone, without the table, whose random look-ups miss the cache at large N.
class OpBytes {
 public:
  OpBytes(const Schedule& schedule, std::int64_t count, DataType type)
      : count_(count),
        nchunks_(schedule.nchunks),
        bytes_per_element_(static_cast<double>(element_size(type))),
        equal_chunk_elements_(count % schedule.nchunks == 0 ? count / schedule.nchunks : -1),
        starts_(equal_chunk_elements_ >= 0 ? 0 : static_cast<std::size_t>(schedule.nchunks) + 1) {
    for (std::size_t chunk = 0; chunk < starts_.size(); ++chunk)
      starts_[chunk] = chunk_start(static_cast<std::int64_t>(chunk), count, nchunks_);
  }
  bool equal_chunks() const { return equal_chunk_elements_ >= 0; }
  double operator()(ChunkRange chunks) const {
    if (equal_chunk_elements_ >= 0) return static_cast<double>(chunks.size() * equal_chunk_elements_) * bytes_per_element_;
    const std::int64_t elements = chunks.end <= nchunks_ ? start_of(chunks.end) - start_of(chunks.begin)
                                                         : count_ - start_of(chunks.begin) + start_of(chunks.end - nchunks_);
    return static_cast<double>(elements) * bytes_per_element_;
  }

 private:
  std::int64_t start_of(std::int64_t chunk) const { return starts_[static_cast<std::size_t>(chunk)]; }
  std::int64_t count_;
  std::int64_t nchunks_;
  double bytes_per_element_;
  std::int64_t equal_chunk_elements_;
  std::vector<std::int64_t> starts_;
};

// One op of `rank` (peer, kind) of `bytes` added to the rank's port loads and reduced bytes in
// a step: its sends share the outgoing port, its receives the incoming one. The one place the
// walks of an explicit schedule (windowed, packed, alike check) price an op, so that they stay
// equal to the last bit. Returns the op's route. Always inlined: it runs once per op, and GCC
// leaves it out of line once it has several callers (the alike check: 43 -> 47 ms at N = 65536).
template <typename Load, typename Routes>
[[gnu::always_inline]] inline RouteCost add_op_load(Load& load, int rank, int peer, OpKind kind, double bytes,
                                                    Routes& route_costs) {
  const bool sending = kind == OpKind::send;
  const RouteCost route = sending ? route_costs.between(rank, peer) : route_costs.between(peer, rank);
  (sending ? load.outgoing_seconds : load.incoming_seconds) += bytes * route.seconds_per_byte;
  if (kind == OpKind::recv_reduce) load.reduced_bytes += bytes;
  return route;
}

// The routes of a network where every ordered pair of distinct ranks costs alike
// (RouteCosts::every_pair_alike), for add_op_load: the one cost, without a look-up per op.
struct EveryPairAlike {
  RouteCost cost;
  RouteCost between(int /*source*/, int /*destination*/) const { return cost; }
};

// Calls walk(routes) with the routes an explicit schedule's ops are priced by: EveryPairAlike
// when every pair costs alike (`pairs_alike`: such ops name other ranks only, op_in_range), else
// route_costs itself. Two instantiations of the walk, one per kind of routes.
template <typename Walk>
decltype(auto) with_op_routes(RouteCosts& route_costs, bool pairs_alike, Walk&& walk) {
  if (pairs_alike) {
    EveryPairAlike alike{route_costs.between(1, 0)};
    return walk(alike);
  }
  return walk(route_costs);
}

}  // namespace ringlab::simulator
