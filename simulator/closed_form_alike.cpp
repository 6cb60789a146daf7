// Shortcut: an explicit schedule whose ranks run alike. It equals the walk to the last bit when
// every rank, in every step, has exactly rank 0's port loads, reduced bytes and longest route
// latency (halving_doubling and recursive_doubling at N a power of two on a network where every
// pair of ranks costs alike): by induction on the step, all ranks start step k at the same F,
// every transfer of a rank ends at F + (latency + max(out, in)) with out and in the same on every
// rank, and rounding is monotone, so every rank's step clock ends at F + (longest latency +
// max(out, in)), then + gamma x reduced, the same on every rank. predict_alike checks that
// condition in one read of the schedule, rank against rank 0, and gives up at the first rank that
// differs (for a schedule whose ranks do not run alike, mostly within its first ranks).
#include "simulator/closed_form_alike.hpp"

#include <algorithm>

#include "simulator/block_prefetcher.hpp"
#include "simulator/schedule_walk.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {
namespace {

template <typename Routes>
RankStepCost rank_step_cost(const Schedule& schedule, int rank, int step, Routes& route_costs,
                            const OpBytes& bytes_of) {
  RankStepCost cost;
  for (const Op& op : step_ops(schedule, rank, step)) {
    if (!op_in_range(schedule, rank, op)) throw_op_out_of_range(schedule, rank, step, op);
    const RouteCost route = add_op_load(cost, rank, op.peer, op.kind, bytes_of(op.chunks), route_costs);
    cost.longest_latency_seconds = std::max(cost.longest_latency_seconds, route.latency_seconds);
    cost.any_op = true;
  }
  return cost;
}

}  // namespace

Prediction price_alike(const std::vector<RankStepCost>& rank0, int nranks, double gamma_seconds_per_byte) {
  double finish = 0;
  for (const RankStepCost& cost : rank0) {
    StepClock clock(finish);
    if (cost.any_op)  // the longest route's transfer ends last
      clock.transfer(finish, finish, cost.longest_latency_seconds, cost.outgoing_seconds, cost.incoming_seconds);
    finish = clock.advance(gamma_seconds_per_byte * cost.reduced_bytes);
  }
  Prediction prediction;
  prediction.steps = static_cast<int>(rank0.size());
  prediction.seconds = finish;
  prediction.rank_finish_seconds.assign(static_cast<std::size_t>(nranks), finish);
  prediction.ranks_alike = true;
  return prediction;
}

std::optional<Prediction> predict_alike(const Schedule& schedule, RouteCosts& route_costs, double gamma_seconds_per_byte,
                                        const OpBytes& bytes_of) {
  if (schedule.circulant) return std::nullopt;
  // A cheap first look, before rank 0's costs (a parameter server's rank 0 has N - 1 ops in a
  // step): the first and the last rank have as many ops in every step.
  const std::vector<Step>& first_steps = schedule.programs.front().steps;
  const std::vector<Step>& last_steps = schedule.programs.back().steps;
  if (first_steps.size() != last_steps.size()) return std::nullopt;
  for (std::size_t step = 0; step < first_steps.size(); ++step)
    if (first_steps[step].size() != last_steps[step].size()) return std::nullopt;
  const auto nsteps = static_cast<std::size_t>(schedule.num_steps());
  std::vector<RankStepCost> rank0(nsteps);
  for (std::size_t step = 0; step < nsteps; ++step)
    rank0[step] = rank_step_cost(schedule, 0, static_cast<int>(step), route_costs, bytes_of);
  const auto every_rank_alike = [&](auto& routes) {
    for (int block = 0; block < schedule.nranks; block += ranks_per_block) {
      const int block_end = std::min(schedule.nranks, block + ranks_per_block);
      BlockPrefetcher prefetcher(schedule, block, block_end, 0, nsteps);
      for (std::size_t step = 0; step < nsteps; ++step)
        for (int rank = block; rank < block_end; ++rank) {
          prefetcher.at(rank, step);
          if (rank_step_cost(schedule, rank, static_cast<int>(step), routes, bytes_of) != rank0[step]) return false;
        }
    }
    return true;
  };
  if (!with_op_routes(route_costs, route_costs.every_pair_alike(), every_rank_alike)) return std::nullopt;
  return price_alike(rank0, schedule.nranks, gamma_seconds_per_byte);
}

}  // namespace ringlab::simulator
