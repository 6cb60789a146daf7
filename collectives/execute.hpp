// The generic executor: runs one rank's part of any schedule on any Communicator, and the
// PreparedCollective that puts schedule-based algorithms and native baselines behind one call.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backend_registry.hpp"
#include "collectives/communicator.hpp"
#include "collectives/datatype.hpp"
#include "collectives/fault_injection.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_trace.hpp"

namespace ringlab {

struct ExecuteOptions {
  // Transfers are cut into segments of at most this many bytes so that reducing one segment
  // overlaps receiving the next; 0 sends each op's chunks whole.
  std::size_t segment_bytes = std::size_t{1} << 20;
  // Every wait gives up after this long with a TimeoutError naming rank, operation, peer and tag,
  // to which the executor adds the algorithm, collective and step.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  // Test only (RINGLAB_FAULT): when set, called at every step boundary; owned by the rank.
  FaultInjector* fault = nullptr;
  // Before running, ranks compare algorithm, collective, count, type, op and segment size and
  // fail together, naming both values, when they differ.
  bool check_consistency = true;
  // --trace: when set, called with each step and each piece's send, receive and reduction as
  // this rank saw them (step_trace.hpp); when empty the executor reads no clock for it.
  StepTraceHook step_trace;
};

// One rank's view of a schedule.
struct RankPlan {
  std::string algorithm;
  Collective collective = Collective::allreduce;
  int nranks = 1;
  int rank = 0;
  int root = 0;
  std::int64_t nchunks = 1;
  RankProgram program;
};

// Checks the schedule (structure and matching; throws std::invalid_argument with the reasons in
// words) and extracts `rank`'s program.
RankPlan plan_for_rank(const Schedule& schedule, int rank);

// Throws std::invalid_argument when count is negative or count * element size overflows.
std::size_t checked_byte_count(std::int64_t count, DataType type);

// Makes every rank agree on `description` (rank 0's is the reference); throws CommunicationError
// on every rank, naming the first differing rank and both descriptions, when they differ.
// `subject` names what is compared in the message ("ranks disagree on <subject>: ...").
void check_ranks_agree(Communicator& comm, std::string_view description, std::chrono::milliseconds timeout,
                       std::string_view subject = "the collective call");

// Scratch space reused across calls.
class Executor {
 public:
  // Runs plan.program on comm. `send` holds the input (may equal `recv` for in-place); the
  // result lands in `recv`. For reduce_scatter rank r's result is its block of `recv`; for
  // all-gather the input is the rank's own block of `send` (the whole buffer is copied);
  // broadcast takes the root's buffer.
  void run(const RankPlan& plan, Communicator& comm, const void* send, void* recv, std::int64_t count,
           DataType type, ReduceOp op, const ExecuteOptions& options);

 private:
  // Receives that cannot land in the output; from comm.allocate_scratch, of the output's memory
  // kind, kept while the communicator and that kind stay the same.
  std::unique_ptr<CommBuffer> scratch_;
  const Communicator* scratch_owner_ = nullptr;
  bool scratch_on_device_ = false;
};

// Every all-reduce the suite can run, schedule-based first, then the native baseline.
std::vector<std::string> allreduce_implementations();

// One interface for every implementation: built once per (algorithm, collective, ranks), run many times.
class PreparedCollective {
 public:
  PreparedCollective(std::string_view algorithm, Collective collective, const AlgorithmOptions& options,
                     int nranks, int rank);
  void run(Communicator& comm, const void* send, void* recv, std::int64_t count, DataType type, ReduceOp op,
           const ExecuteOptions& options);
  const std::string& algorithm() const { return algorithm_; }
  bool is_native() const { return native_; }
  const RankPlan& plan() const { return plan_; }

 private:
  std::string algorithm_;
  bool native_ = false;
  RankPlan plan_;
  Executor executor_;
};

}  // namespace ringlab
