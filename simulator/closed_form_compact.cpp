// Shortcut: an explicit schedule packed once (PreparedSchedule, compact_schedule.hpp) for a sweep
// over sizes. It equals the walk to the last bit: every rank is walked step by step on the step
// clock from the packed ops, with the same arithmetic in the same order as the windowed walk of
// closed_form_walk.cpp, only read from two arrays instead of every rank's own vectors. When the
// packed ranks are alike in shape (CompactSchedule::ranks_alike_in_shape), the chunks equal and
// every pair of ranks costs alike (RouteCosts::every_pair_alike), every rank's costs are rank 0's
// op for op, and rank 0's ops alone are priced (the induction of closed_form_alike.cpp).
#include <algorithm>
#include <vector>

#include "simulator/closed_form.hpp"
#include "simulator/closed_form_alike.hpp"
#include "simulator/closed_form_ops.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {

Prediction ClosedFormModel::predict_compact(const Schedule& schedule, const CompactSchedule& compact,
                                            std::int64_t count, DataType type) {
  const auto nranks = static_cast<std::size_t>(schedule.nranks);
  const OpBytes bytes_of(schedule, count, type);
  // Ranks alike in shape, equal chunks and every pair of ranks alike: every rank's costs are rank
  // 0's, op for op in the same order, so its steps give the walk below to the last bit
  // (predict_alike's induction), without reading the other ranks' ops.
  if (compact.ranks_alike_in_shape() && bytes_of.equal_chunks() && route_costs_.every_pair_alike()) {
    std::vector<RankStepCost> rank0(static_cast<std::size_t>(compact.num_steps()));
    for (int step = 0; step < compact.num_steps(); ++step) {
      RankStepCost& cost = rank0[static_cast<std::size_t>(step)];
      for (const CompactOp& op : compact.ops(step, 0)) {
        const ChunkRange chunks{op.first_chunk, op.first_chunk + op.chunk_count};
        const RouteCost route = add_op_load(cost, 0, op.peer, op.kind, bytes_of(chunks), route_costs_);
        cost.longest_latency_seconds = std::max(cost.longest_latency_seconds, route.latency_seconds);
        cost.any_op = true;
      }
    }
    return price_alike(rank0, schedule.nranks, gamma_seconds_per_byte_);
  }
  if (scratch_.loads.empty()) scratch_.loads.resize(1);
  std::vector<PortLoad>& load = scratch_.loads.front();
  load.resize(nranks);
  std::vector<double>& latencies = scratch_.latencies;
  std::vector<double> finish(nranks, 0.0);
  std::vector<double> next_finish(nranks, 0.0);
  for (int step = 0; step < compact.num_steps(); ++step) {
    // Each rank's port loads and reduced bytes, and each op's route latency, in rank order.
    latencies.clear();
    for (int rank = 0; rank < schedule.nranks; ++rank) {
      PortLoad& own = load[static_cast<std::size_t>(rank)];
      own = PortLoad{};
      for (const CompactOp& op : compact.ops(step, rank)) {
        const ChunkRange chunks{op.first_chunk, op.first_chunk + op.chunk_count};
        latencies.push_back(add_op_load(own, rank, op.peer, op.kind, bytes_of(chunks), route_costs_).latency_seconds);
      }
    }
    // When each transfer ends, hence each rank's step.
    std::size_t index = 0;
    for (int rank = 0; rank < schedule.nranks; ++rank) {
      const auto self = static_cast<std::size_t>(rank);
      StepClock clock(finish[self]);
      for (const CompactOp& op : compact.ops(step, rank)) {
        const auto peer = static_cast<std::size_t>(op.peer);
        const bool sending = op.kind == OpKind::send;
        const std::size_t sender = sending ? self : peer;
        const std::size_t receiver = sending ? peer : self;
        clock.transfer(finish[sender], finish[receiver], latencies[index++], load[sender].outgoing_seconds,
                       load[receiver].incoming_seconds);
      }
      next_finish[self] = clock.advance(gamma_seconds_per_byte_ * load[self].reduced_bytes);
    }
    finish.swap(next_finish);
  }
  Prediction prediction;
  prediction.steps = compact.num_steps();
  prediction.seconds = finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
  prediction.rank_finish_seconds = std::move(finish);
  return prediction;
}

}  // namespace ringlab::simulator
