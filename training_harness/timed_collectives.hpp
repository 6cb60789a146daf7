// The trainers' view of ringlab's collectives: float32 all-reduce (sum), all-gather and
// reduce-scatter on one algorithm, each call timed. Block layout as the executor defines it:
// for all-gather and reduce-scatter rank r owns elements [r*count/N, (r+1)*count/N), so callers
// pass counts that are multiples of N. On one rank every call is the identity and costs nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/selection_table.hpp"

namespace ringlab::training {

struct CollectiveTotals {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;  // buffer bytes (count * 4) over the calls
  double seconds = 0.0;
};

// The --algo name that runs, per all-reduce size, what a tuning table (`ringlab tune`) chooses.
inline constexpr const char* auto_algorithm_name = "auto";

// Throws std::invalid_argument naming the valid choices when `algorithm` is unknown or, with
// need_gather_and_scatter (hybrid mode), lacks a reduce-scatter or all-gather schedule; "auto"
// needs a tuning table and serves all-reduce only.
void check_algorithm(const std::string& algorithm, bool need_gather_and_scatter, bool has_tuning = false);

class TimedCollectives {
 public:
  // Throws std::invalid_argument when `algorithm` lacks a needed collective, naming the ones
  // that have it. mpi-native serves all-reduce only. With `algorithm` "auto" each all-reduce runs
  // the algorithm and segment size `tuning` chooses for its size (a table without a rule for this
  // rank count is refused here).
  TimedCollectives(Communicator& comm, const std::string& algorithm, bool need_gather_and_scatter,
                   ExecuteOptions options, const SelectionTable* tuning = nullptr);
  void allreduce_sum(std::span<float> data);
  void allgather(std::span<float> data);          // in place: rank r's block is its input
  void reduce_scatter_sum(std::span<float> data);  // in place: rank r's block is its result
  // Untimed all-reduce for reporting (metrics, timing figures).
  void allreduce_untimed(std::span<double> data, ReduceOp op);
  // Under "auto": each all-reduce size run so far, with what ran, by size.
  std::vector<SelectionChoice> auto_choices() const;
  const CollectiveTotals& allreduce_totals() const { return allreduce_; }
  const CollectiveTotals& allgather_totals() const { return allgather_; }
  const CollectiveTotals& reduce_scatter_totals() const { return reduce_scatter_; }
  double seconds() const { return allreduce_.seconds + allgather_.seconds + reduce_scatter_.seconds; }
  Communicator& comm() { return comm_; }

 private:
  void run(PreparedCollective& collective, CollectiveTotals& totals, std::span<float> data, const ExecuteOptions& options);
  PreparedCollective& auto_allreduce(std::int64_t bytes, ExecuteOptions& options);
  Communicator& comm_;
  ExecuteOptions options_;
  const SelectionTable* tuning_ = nullptr;
  std::map<std::string, std::unique_ptr<PreparedCollective>> auto_calls_;  // by algorithm, prepared on first use
  std::map<std::int64_t, const SelectionRule*> auto_rules_;                // by all-reduce size
  std::unique_ptr<PreparedCollective> allreduce_call_, allgather_call_, reduce_scatter_call_, report_call_;
  CollectiveTotals allreduce_, allgather_, reduce_scatter_;
};

}  // namespace ringlab::training
