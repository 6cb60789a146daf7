#include "training_harness/timed_collectives.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "collectives/backend_registry.hpp"
#include "workload/workload_plan.hpp"

namespace ringlab::training {

namespace {

std::unique_ptr<PreparedCollective> prepare(const std::string& algorithm, Collective collective, Communicator& comm) {
  return std::make_unique<PreparedCollective>(algorithm, collective, AlgorithmOptions{}, comm.size(), comm.rank());
}

}  // namespace

void check_algorithm(const std::string& algorithm, bool need_gather_and_scatter) {
  if (is_native_allreduce(algorithm)) {
    if (need_gather_and_scatter)
      throw std::invalid_argument(fmt::format(
          "--mode hybrid needs reduce_scatter and allgather, and {} offers only allreduce; "
          "pick parameter_server, ring or interval_paired",
          algorithm));
    return;
  }
  const AlgorithmInfo& info = find_algorithm(algorithm);  // throws listing the valid names
  if (!need_gather_and_scatter) return;
  for (Collective collective : {Collective::reduce_scatter, Collective::allgather})
    if (!supports(info, collective))
      throw std::invalid_argument(fmt::format(
          "--mode hybrid needs reduce_scatter and allgather, but algorithm '{}' has no {} schedule; "
          "pick parameter_server, ring or interval_paired",
          algorithm, name_of(collective)));
}

TimedCollectives::TimedCollectives(Communicator& comm, const std::string& algorithm, bool need_gather_and_scatter,
                                   ExecuteOptions options)
    : comm_(comm), options_(options) {
  check_algorithm(algorithm, need_gather_and_scatter);
  options_.check_consistency = false;  // counts differ between calls; the trainer checks its config once
  allreduce_call_ = prepare(algorithm, Collective::allreduce, comm);
  report_call_ = prepare("ring", Collective::allreduce, comm);
  if (need_gather_and_scatter) {
    allgather_call_ = prepare(algorithm, Collective::allgather, comm);
    reduce_scatter_call_ = prepare(algorithm, Collective::reduce_scatter, comm);
  }
}

void TimedCollectives::run(PreparedCollective& collective, CollectiveTotals& totals, std::span<float> data) {
  ++totals.calls;
  totals.bytes += static_cast<std::int64_t>(data.size_bytes());
  if (comm_.size() == 1) return;
  const auto start = std::chrono::steady_clock::now();
  collective.run(comm_, data.data(), data.data(), static_cast<std::int64_t>(data.size()), gradient_type, gradient_op,
                 options_);
  totals.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void TimedCollectives::allreduce_sum(std::span<float> data) { run(*allreduce_call_, allreduce_, data); }

void TimedCollectives::allgather(std::span<float> data) {
  if (!allgather_call_) throw std::logic_error("TimedCollectives: all-gather was not prepared");
  run(*allgather_call_, allgather_, data);
}

void TimedCollectives::reduce_scatter_sum(std::span<float> data) {
  if (!reduce_scatter_call_) throw std::logic_error("TimedCollectives: reduce-scatter was not prepared");
  run(*reduce_scatter_call_, reduce_scatter_, data);
}

void TimedCollectives::allreduce_untimed(std::span<double> data, ReduceOp op) {
  if (comm_.size() == 1) return;
  report_call_->run(comm_, data.data(), data.data(), static_cast<std::int64_t>(data.size()), DataType::float64, op,
                    options_);
}

}  // namespace ringlab::training
