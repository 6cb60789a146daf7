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

void check_algorithm(const std::string& algorithm, bool need_gather_and_scatter, bool has_tuning) {
  if (algorithm == auto_algorithm_name) {
    if (!has_tuning)
      throw std::invalid_argument("--algo auto runs what a tuning table chooses: give --tuning FILE (written by ringlab tune)");
    if (need_gather_and_scatter)
      throw std::invalid_argument(
          "--algo auto chooses the all-reduce only, and --mode hybrid also runs reduce_scatter and allgather; "
          "name an algorithm such as ring or interval_paired");
    return;
  }
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
                                   ExecuteOptions options, const SelectionTable* tuning)
    : comm_(comm), options_(options) {
  check_algorithm(algorithm, need_gather_and_scatter, tuning != nullptr);
  options_.check_consistency = false;  // counts differ between calls; the trainer checks its config once
  if (algorithm == auto_algorithm_name && comm.size() > 1) {
    tuning_ = tuning;
    select_rule(*tuning_, Collective::allreduce, comm.size(), 0);  // refuses a table without this rank count
  } else {  // one rank never communicates: nothing to choose
    allreduce_call_ = prepare(algorithm == auto_algorithm_name ? "ring" : algorithm, Collective::allreduce, comm);
  }
  report_call_ = prepare("ring", Collective::allreduce, comm);
  if (need_gather_and_scatter) {
    allgather_call_ = prepare(algorithm, Collective::allgather, comm);
    reduce_scatter_call_ = prepare(algorithm, Collective::reduce_scatter, comm);
  }
}

void TimedCollectives::run(PreparedCollective& collective, CollectiveTotals& totals, std::span<float> data,
                           const ExecuteOptions& options) {
  ++totals.calls;
  totals.bytes += static_cast<std::int64_t>(data.size_bytes());
  if (comm_.size() == 1) return;
  const auto start = std::chrono::steady_clock::now();
  collective.run(comm_, data.data(), data.data(), static_cast<std::int64_t>(data.size()), gradient_type, gradient_op,
                 options);
  totals.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

PreparedCollective& TimedCollectives::auto_allreduce(std::int64_t bytes, ExecuteOptions& options) {
  const SelectionRule& rule = select_rule(*tuning_, Collective::allreduce, comm_.size(), bytes);
  auto_rules_.emplace(bytes, &rule);
  options.segment_bytes = static_cast<std::size_t>(rule.segment_bytes);
  std::unique_ptr<PreparedCollective>& call = auto_calls_[rule.algorithm];
  if (!call) call = prepare(rule.algorithm, Collective::allreduce, comm_);
  return *call;
}

void TimedCollectives::allreduce_sum(std::span<float> data) {
  if (tuning_ == nullptr) return run(*allreduce_call_, allreduce_, data, options_);
  ExecuteOptions options = options_;
  PreparedCollective& call = auto_allreduce(static_cast<std::int64_t>(data.size_bytes()), options);
  run(call, allreduce_, data, options);
}

std::vector<SelectionChoice> TimedCollectives::auto_choices() const {
  std::vector<SelectionChoice> choices;
  for (const auto& [bytes, rule] : auto_rules_) choices.push_back({bytes, rule->algorithm, rule->segment_bytes});
  return choices;
}

void TimedCollectives::allgather(std::span<float> data) {
  if (!allgather_call_) throw std::logic_error("TimedCollectives: all-gather was not prepared");
  run(*allgather_call_, allgather_, data, options_);
}

void TimedCollectives::reduce_scatter_sum(std::span<float> data) {
  if (!reduce_scatter_call_) throw std::logic_error("TimedCollectives: reduce-scatter was not prepared");
  run(*reduce_scatter_call_, reduce_scatter_, data, options_);
}

void TimedCollectives::allreduce_untimed(std::span<double> data, ReduceOp op) {
  if (comm_.size() == 1) return;
  report_call_->run(comm_, data.data(), data.data(), static_cast<std::int64_t>(data.size()), DataType::float64, op,
                    options_);
}

}  // namespace ringlab::training
