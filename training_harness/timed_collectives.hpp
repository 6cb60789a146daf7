// The trainers' view of ringlab's collectives: float32 all-reduce (sum), all-gather and
// reduce-scatter on one algorithm, each call timed. Block layout as the executor defines it:
// for all-gather and reduce-scatter rank r owns elements [r*count/N, (r+1)*count/N), so callers
// pass counts that are multiples of N. On one rank every call is the identity and costs nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "collectives/communicator.hpp"
#include "collectives/execute.hpp"

namespace ringlab::training {

struct CollectiveTotals {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;  // buffer bytes (count * 4) over the calls
  double seconds = 0.0;
};

// Throws std::invalid_argument naming the valid choices when `algorithm` is unknown or, with
// need_gather_and_scatter (hybrid mode), lacks a reduce-scatter or all-gather schedule.
void check_algorithm(const std::string& algorithm, bool need_gather_and_scatter);

class TimedCollectives {
 public:
  // Throws std::invalid_argument when `algorithm` lacks a needed collective, naming the ones
  // that have it. mpi-native serves all-reduce only.
  TimedCollectives(Communicator& comm, const std::string& algorithm, bool need_gather_and_scatter,
                   ExecuteOptions options);
  void allreduce_sum(std::span<float> data);
  void allgather(std::span<float> data);          // in place: rank r's block is its input
  void reduce_scatter_sum(std::span<float> data);  // in place: rank r's block is its result
  // Untimed all-reduce for reporting (metrics, timing figures).
  void allreduce_untimed(std::span<double> data, ReduceOp op);
  const CollectiveTotals& allreduce_totals() const { return allreduce_; }
  const CollectiveTotals& allgather_totals() const { return allgather_; }
  const CollectiveTotals& reduce_scatter_totals() const { return reduce_scatter_; }
  double seconds() const { return allreduce_.seconds + allgather_.seconds + reduce_scatter_.seconds; }
  Communicator& comm() { return comm_; }

 private:
  void run(PreparedCollective& collective, CollectiveTotals& totals, std::span<float> data);
  Communicator& comm_;
  ExecuteOptions options_;
  std::unique_ptr<PreparedCollective> allreduce_call_, allgather_call_, reduce_scatter_call_, report_call_;
  CollectiveTotals allreduce_, allgather_, reduce_scatter_;
};

}  // namespace ringlab::training
