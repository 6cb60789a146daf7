// The closed form's walk, which every shortcut equals: every rank of a schedule priced step by step
// on the step clock (collectives/step_clock.hpp). Pass 1 records, for a window of steps, what each
// rank's ports carry, what it reduces and its transfers; pass 2 pairs each transfer's ends, rank
// by rank, step by step. It prices what no shortcut covers: an explicit schedule neither packed
// nor run alike by its ranks, and a circulant one on a network whose offsets do not cost alike.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "simulator/block_prefetcher.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"
#include "simulator/schedule_walk.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {

Prediction ClosedFormModel::predict_walk(const Schedule& schedule, const OpBytes& bytes_of, ReductionForms* forms) {
  const auto nranks = static_cast<std::size_t>(schedule.nranks);
  Prediction prediction;
  prediction.steps = schedule.num_steps();
  const auto nsteps = static_cast<std::size_t>(prediction.steps);
  // Steps are priced in windows whose pass-1 records fit a memory budget (about 60 bytes per rank
  // and step with two ops): one window for halving_doubling at N = 65536, many for a schedule of
  // 2(N - 1) steps, whose records for all steps at once would not fit in memory.
  constexpr std::size_t record_budget_bytes = std::size_t{128} << 20;
  constexpr std::size_t record_bytes_per_rank_step = sizeof(PortLoad) + sizeof(std::uint32_t) + 2 * sizeof(Transfer);
  const std::size_t window =
      std::clamp<std::size_t>(record_budget_bytes / (record_bytes_per_rank_step * nranks), 1, std::max<std::size_t>(nsteps, 1));
  std::vector<std::vector<PortLoad>>& loads = scratch_.loads;
  std::vector<std::vector<Transfer>>& transfers = scratch_.transfers;
  std::vector<std::vector<std::uint32_t>>& rank_start = scratch_.rank_start;
  loads.resize(window);
  transfers.resize(window);
  rank_start.resize(window);
  for (std::size_t slot = 0; slot < window; ++slot) {
    loads[slot].resize(nranks);  // each entry is reset as its rank is walked
    rank_start[slot].resize(nranks + 1);
  }
  // A circulant schedule's ops are offsets, which may name the rank itself: their routes are looked up.
  const bool every_pair_alike = !schedule.circulant && route_costs_.every_pair_alike();
  std::vector<double> finish(nranks, 0.0);
  std::vector<double> next_finish(nranks, 0.0);
  std::vector<Op> step_ops_of_rank;  // with forms: one rank's step, peers resolved
  for (std::size_t first_step = 0; first_step < nsteps; first_step += window) {
    const std::size_t window_steps = std::min(window, nsteps - first_step);
    // Pass 1: per step of the window, what each rank's ports carry, what it reduces and its
    // transfers (in rank order), walked in blocks of ranks and within a block step by step
    // (ranks_per_block: 40 % of the time at N = 65536 walked otherwise).
    for (std::size_t slot = 0; slot < window_steps; ++slot) transfers[slot].clear();
    // routes: route_costs_, or on a network whose every pair costs alike that one cost (the same
    // values without a look-up per op, whose rows miss the cache at large N)
    auto pass1 = [&](auto& routes) {
      for (int block = 0; block < schedule.nranks; block += ranks_per_block) {
        const int block_end = std::min(schedule.nranks, block + ranks_per_block);
        BlockPrefetcher prefetcher(schedule, block, block_end, first_step, first_step + window_steps);
        for (std::size_t slot = 0; slot < window_steps; ++slot) {
          const int step = static_cast<int>(first_step + slot);
          std::vector<Transfer>& step_transfers = transfers[slot];
          for (int rank = block; rank < block_end; ++rank) {
            prefetcher.at(rank, first_step + slot);
            const auto self = static_cast<std::size_t>(rank);
            PortLoad& load = loads[slot][self];
            load = PortLoad{};
            rank_start[slot][self] = static_cast<std::uint32_t>(step_transfers.size());
            for (const Op& written : step_ops(schedule, rank, step)) {
              if (!schedule.circulant && !op_in_range(schedule, rank, written))
                throw_op_out_of_range(schedule, rank, step, written);
              const Op op = schedule.circulant ? schedule.resolve(written, rank) : written;
              const RouteCost route = add_op_load(load, rank, op.peer, op.kind, bytes_of(op.chunks), routes);
              step_transfers.push_back({op.peer, op.kind == OpKind::send, route.latency_seconds});
              if (forms != nullptr) step_ops_of_rank.push_back(op);
            }
            if (forms != nullptr) {  // which of its reductions the executor runs in place
              for (const PlannedPiece& receive : forms->plans.next_step(rank, step_ops_of_rank).receives)
                if (receive.kind == OpKind::recv_reduce && receive.reads_output)
                  load.in_place_bytes += static_cast<double>(receive.piece.count) * forms->bytes_per_element;
              step_ops_of_rank.clear();
            }
          }
        }
      }
    };
    with_op_routes(route_costs_, every_pair_alike, pass1);  // halving_doubling at N = 65535: 48-50 -> 40 ms
    // Pass 2, step by step: when each transfer ends, hence each rank's step.
    for (std::size_t slot = 0; slot < window_steps; ++slot) {
      const std::vector<PortLoad>& load = loads[slot];
      const std::vector<Transfer>& step_transfers = transfers[slot];
      std::vector<std::uint32_t>& start = rank_start[slot];
      start[nranks] = static_cast<std::uint32_t>(step_transfers.size());
      for (std::size_t self = 0; self < nranks; ++self) {
        StepClock clock(finish[self]);
        for (std::size_t i = start[self]; i < start[self + 1]; ++i) {
          const Transfer& transfer = step_transfers[i];
          const auto peer = static_cast<std::size_t>(transfer.peer);
          const std::size_t sender = transfer.sending ? self : peer;
          const std::size_t receiver = transfer.sending ? peer : self;
          clock.transfer(finish[sender], finish[receiver], transfer.latency_seconds, load[sender].outgoing_seconds,
                         load[receiver].incoming_seconds);
        }
        const PortLoad& own = load[self];
        next_finish[self] = clock.advance(
            forms == nullptr ? gamma_seconds_per_byte_ * own.reduced_bytes
                             : gamma_seconds_per_byte_ * (own.reduced_bytes - own.in_place_bytes) +
                                   forms->in_place_gamma_seconds_per_byte * own.in_place_bytes);
      }
      finish.swap(next_finish);
    }
  }
  prediction.seconds = finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
  prediction.rank_finish_seconds = std::move(finish);
  return prediction;
}

}  // namespace ringlab::simulator
