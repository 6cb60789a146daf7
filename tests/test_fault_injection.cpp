// The watchdog on the threads backend: one rank stalls or fails at a chosen step (FaultInjector),
// and every rank must end, the others with an error naming the operation, step, peer and rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/fault_injection.hpp"

namespace ringlab {
namespace {

TEST(FaultSpec, ParsesEveryField) {
  const FaultSpec spec = parse_fault_spec("rank=2,step=3,action=exit,bytes=65536,seconds=7.5");
  EXPECT_EQ(spec.rank, 2);
  EXPECT_EQ(spec.step, 3);
  EXPECT_EQ(spec.action, FaultAction::exit);
  EXPECT_EQ(spec.min_bytes, 65536);
  EXPECT_DOUBLE_EQ(spec.stall_seconds, 7.5);
  EXPECT_EQ(parse_fault_spec("action=fail,step=0,rank=0").action, FaultAction::fail);
}

TEST(FaultSpec, RefusesBadSpecsNamingTheField) {
  auto message_of = [](const char* text) {
    try {
      parse_fault_spec(text);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of("rank=1,step=2").find("rank, step and action are required"), std::string::npos);
  EXPECT_NE(message_of("rank=1,step=2,action=explode").find("unknown action 'explode'"), std::string::npos);
  EXPECT_NE(message_of("rank=x,step=2,action=stall").find("rank='x' is not a non-negative number"), std::string::npos);
  EXPECT_NE(message_of("rank=1,step=-2,action=stall").find("step='-2'"), std::string::npos);
  EXPECT_NE(message_of("rank=1,stp=2,action=stall").find("unknown key 'stp'"), std::string::npos);
  EXPECT_NE(message_of("rank=1,step,action=stall").find("'step' is not key=value"), std::string::npos);
}

// A measurement outside the executor (calibration's ping-pong) asks at_round: the fault acts once,
// on its rank, at its round and not below its bytes, naming the measurement and the round.
TEST(FaultInjector, AtRoundActsOnceOnTheChosenRankRoundAndSize) {
  run_threads(2, [](Communicator& comm) {
    FaultInjector fault(parse_fault_spec("rank=1,step=2,bytes=64,action=fail"));
    std::vector<std::string> failures;
    for (std::size_t round = 0; round < 4; ++round) {
      for (std::size_t bytes : {std::size_t{32}, std::size_t{64}, std::size_t{128}}) {
        try {
          fault.at_round(comm, "calibration ping-pong", round, bytes);
        } catch (const std::runtime_error& error) {
          failures.push_back(error.what());
        }
      }
    }
    if (comm.rank() == 0) {
      EXPECT_TRUE(failures.empty());
    } else {
      ASSERT_EQ(failures.size(), 1u);
      EXPECT_EQ(failures[0], "fault injected: failing at calibration ping-pong round 2 (64 bytes)");
    }
  });
}

struct RankEnd {
  bool failed = false;
  std::string message;
};

// Runs `algorithm` on `nranks` threads with `spec` injected; returns how each rank ended and the
// wall time. run_threads rethrows the first error, so the call itself returning proves no thread hung.
std::vector<RankEnd> run_with_fault(const std::string& algorithm, int nranks, const FaultSpec& spec,
                                    std::chrono::milliseconds timeout, double* seconds) {
  std::vector<RankEnd> ends(static_cast<std::size_t>(nranks));
  std::mutex mutex;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_ANY_THROW(run_threads(nranks, [&](Communicator& comm) {
    PreparedCollective prepared(algorithm, Collective::allreduce, {}, comm.size(), comm.rank());
    FaultInjector fault(spec);
    ExecuteOptions options;
    options.timeout = timeout;
    options.fault = &fault;
    std::vector<float> data(4096, 1.0f);
    try {
      for (int call = 0; call < 3; ++call)
        prepared.run(comm, data.data(), data.data(), static_cast<std::int64_t>(data.size()), DataType::float32,
                     ReduceOp::sum, options);
    } catch (const std::exception& error) {
      const std::lock_guard lock(mutex);
      ends[static_cast<std::size_t>(comm.rank())] = {true, error.what()};
      throw;
    }
  }));
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ends;
}

class ThreadsWatchdog : public ::testing::TestWithParam<std::string> {};

// Rank 1 stops communicating at step 1: every other rank times out (or is interrupted by the
// first that did) with a message naming the wait, the step and the peer; the stalled rank is
// released by the abort instead of sleeping its hour.
TEST_P(ThreadsWatchdog, StalledRankEndsEveryRankWithinTheTimeout) {
  const std::string algorithm = GetParam();
  const FaultSpec spec{1, 1, 0, FaultAction::stall, 3600};
  double seconds = 0;
  const auto ends = run_with_fault(algorithm, 4, spec, std::chrono::milliseconds(500), &seconds);
  EXPECT_LT(seconds, 0.5 + 10.0);
  int timed_out = 0;
  for (std::size_t rank = 0; rank < ends.size(); ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank) + ": " + ends[rank].message);
    EXPECT_TRUE(ends[rank].failed);
    if (rank == 1) continue;
    // Its own time-out, or the abort carrying the first rank's time-out.
    EXPECT_NE(ends[rank].message.find("timed out"), std::string::npos);
    // Operation (the wait and the algorithm), step and peer (rank is the message's prefix).
    EXPECT_NE(ends[rank].message.find("step "), std::string::npos);
    EXPECT_TRUE(ends[rank].message.find("from rank ") != std::string::npos ||
                ends[rank].message.find("to rank ") != std::string::npos);
    EXPECT_NE(ends[rank].message.find(algorithm + " allreduce"), std::string::npos);
    if (ends[rank].message.find("interrupted") == std::string::npos) ++timed_out;
  }
  EXPECT_GE(timed_out, 1);
  EXPECT_NE(ends[1].message.find("injected stall at " + algorithm), std::string::npos);
  EXPECT_NE(ends[1].message.find("interrupted: the job was aborted"), std::string::npos);
}

// A rank that throws at step 1 ends the job at once: every other rank is interrupted with its reason.
TEST_P(ThreadsWatchdog, FailingRankInterruptsTheOthers) {
  const FaultSpec spec{2, 1, 0, FaultAction::fail, 0};
  double seconds = 0;
  const auto ends = run_with_fault(GetParam(), 4, spec, std::chrono::seconds(30), &seconds);
  EXPECT_LT(seconds, 10.0);  // far below the 30 s time-out: nobody waited it out
  EXPECT_NE(ends[2].message.find("fault injected"), std::string::npos);
  for (std::size_t rank = 0; rank < ends.size(); ++rank) {
    if (rank == 2) continue;
    EXPECT_TRUE(ends[rank].failed) << "rank " << rank;
    EXPECT_NE(ends[rank].message.find("rank 2 failed"), std::string::npos) << ends[rank].message;
  }
}

// A rank that is slow (stalls 0.3 s) but within the 5 s time-out is not a fault: the call
// completes on every rank with the right sum.
TEST_P(ThreadsWatchdog, SlowRankWithinTheTimeoutIsNoFault) {
  const FaultSpec spec{1, 1, 0, FaultAction::stall, 0.3};
  EXPECT_NO_THROW(run_threads(4, [&](Communicator& comm) {
    PreparedCollective prepared(GetParam(), Collective::allreduce, {}, comm.size(), comm.rank());
    FaultInjector fault(spec);
    ExecuteOptions options;
    options.timeout = std::chrono::seconds(5);
    options.fault = &fault;
    std::vector<float> data(4096, 1.0f);
    prepared.run(comm, data.data(), data.data(), static_cast<std::int64_t>(data.size()), DataType::float32,
                 ReduceOp::sum, options);
    EXPECT_EQ(std::count(data.begin(), data.end(), 4.0f), static_cast<std::ptrdiff_t>(data.size()));
  }));
}

std::vector<std::string> schedule_algorithms() {
  std::vector<std::string> names = allreduce_implementations();
  std::erase(names, std::string(mpi_native));
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, ThreadsWatchdog, ::testing::ValuesIn(schedule_algorithms()),
                         [](const ::testing::TestParamInfo<std::string>& test) { return test.param; });

}  // namespace
}  // namespace ringlab
