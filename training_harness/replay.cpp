#include "training_harness/replay.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "training_harness/timed_collectives.hpp"

namespace ringlab::training {

namespace {

using Clock = std::chrono::steady_clock;

PhaseTotals per_iteration(const CollectiveTotals& totals, int iterations) {
  return {totals.calls / iterations, totals.bytes / iterations};
}

}  // namespace

ReplayResult run_replay(Communicator& comm, const IterationPlan& plan, const std::string& algorithm, int iterations,
                        const ExecuteOptions& options, const SelectionTable* tuning) {
  if (plan.nranks != comm.size())
    throw std::invalid_argument(fmt::format("the plan is for {} ranks, the job has {}", plan.nranks, comm.size()));
  if (iterations < 1) throw std::invalid_argument("--iterations must be at least 1");
  TimedCollectives collectives(comm, algorithm, plan.mode == ReplayMode::hybrid, options, tuning);
  std::vector<float> gradients(static_cast<std::size_t>(plan.totals(PhaseKind::allreduce).bytes / 4), 1.0f);
  std::vector<float> activations(static_cast<std::size_t>(
                                     std::max(plan.largest_count(PhaseKind::allgather),
                                              plan.largest_count(PhaseKind::reduce_scatter))),
                                 1.0f);
  ReplayResult result;
  const double ranks = comm.size();
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const double comm_before = collectives.seconds();
    const Clock::time_point start = Clock::now();
    std::size_t gradient_offset = 0;
    for (const Phase& phase : plan.phases) {
      const std::size_t count = static_cast<std::size_t>(phase.count);
      switch (phase.kind) {
        case PhaseKind::compute:
          std::this_thread::sleep_until(Clock::now() + std::chrono::duration<double>(phase.seconds));
          break;
        case PhaseKind::allreduce:
          collectives.allreduce_sum(std::span<float>(gradients).subspan(gradient_offset, count));
          gradient_offset += count;
          break;
        case PhaseKind::allgather: collectives.allgather(std::span<float>(activations).first(count)); break;
        case PhaseKind::reduce_scatter: collectives.reduce_scatter_sum(std::span<float>(activations).first(count)); break;
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double comm_seconds = collectives.seconds() - comm_before;
    double largest[2] = {seconds, -comm_seconds};  // max time, min communication
    double sums[2] = {seconds - comm_seconds, comm_seconds};
    collectives.allreduce_untimed(largest, ReduceOp::max);
    collectives.allreduce_untimed(sums, ReduceOp::sum);
    IterationTimes summary;
    summary.iteration_seconds = largest[0];
    summary.compute_seconds = sums[0] / ranks;
    summary.communication_seconds = -largest[1];
    summary.idle_seconds = sums[1] / ranks - summary.communication_seconds;
    result.iterations.push_back(summary);
  }
  result.allreduce = per_iteration(collectives.allreduce_totals(), iterations);
  result.allgather = per_iteration(collectives.allgather_totals(), iterations);
  result.reduce_scatter = per_iteration(collectives.reduce_scatter_totals(), iterations);
  result.auto_choices = collectives.auto_choices();
  return result;
}

}  // namespace ringlab::training
