// A new algorithm or backend is one file plus one registry line: these tests add a toy of each,
// the algorithm to a copy of its registry (standing in for the line in algorithms/registry.cpp),
// the backend as a line of collectives/backends.def read the way the registry and cli's launcher
// table read that file, find it through the look-ups and run an all-reduce with it (the backend's
// through a launch request to its launcher, as cli's run_ranks hands one).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backend_registry.hpp"
#include "collectives/backends/largest_status.hpp"
#include "collectives/backends/rank_errors.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/expected_values.hpp"
#include "collectives/launch_request.hpp"
#include "collectives/verify.hpp"

namespace ringlab {
namespace {

// The toy algorithm's file: every rank sends its whole buffer to every other rank and combines
// what it receives, all in one step (one chunk; N - 1 messages a rank).
Schedule toy_direct(Collective collective, int nranks, const AlgorithmOptions&) {
  Schedule schedule = make_explicit("toy_direct", collective, nranks, 1);
  for (int rank = 0; rank < nranks; ++rank)
    for (int peer = 0; peer < nranks; ++peer) {
      if (peer == rank) continue;
      add_op(schedule, rank, 0, {OpKind::send, peer, {0, 1}});
      add_op(schedule, rank, 0, {OpKind::recv_reduce, peer, {0, 1}});
    }
  return schedule;
}

// The toy backend's file: a communicator whose transport is a threads world's (the transport
// every backend provides: rank, size, name, send, receive, barrier, abort) and no capability,
// and its launcher (what a backend's *_launcher.cpp holds): the ranks as threads of this process,
// run through the wrapper the threads and cuda-peer launchers share (largest_status).
class ToyCommunicator final : public Communicator {
 public:
  ToyCommunicator(const std::shared_ptr<ThreadsWorld>& world, int rank) : transport_(world, rank) {}
  int rank() const override { return transport_.rank(); }
  int size() const override { return transport_.size(); }
  std::string_view backend_name() const override { return "toy"; }
  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override {
    return transport_.post_send(data, peer, tag);
  }
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override {
    return transport_.post_recv(data, peer, tag);
  }
  void barrier(Clock::time_point deadline) override { transport_.barrier(deadline); }
  void abort(std::string_view reason) override { transport_.abort(reason); }
  bool aborted() const override { return transport_.aborted(); }

 private:
  ThreadsCommunicator transport_;
};

int launch_toy(const LaunchRequest& request) {
  const auto world = std::make_shared<ThreadsWorld>(request.layout.ranks);
  return largest_status(request, [&](const std::function<void(Communicator&)>& rank_body) {
    run_threads(world, [&](int rank) { return std::make_unique<ToyCommunicator>(world, rank); }, rank_body);
  });
}

}  // namespace

const Launcher toy_launcher{&launch_toy, {}};  // the name RINGLAB_BACKEND_LAUNCHER gives the toy's line

namespace {

// The toy's line, as it would stand in collectives/backends.def.
#define RINGLAB_TOY_LINE RINGLAB_BACKEND(toy, "toy", RankStart::threads, BufferMemory::host, {})

// Runs one float32 sum all-reduce of `schedule` on this rank and returns the elements that differ
// from the expected values.
std::int64_t wrong_elements(Communicator& comm, const Schedule& schedule) {
  constexpr std::int64_t count = 1001;
  std::vector<float> send(count), recv(count), expected(count);
  fill_input(send.data(), count, DataType::float32, ReduceOp::sum, comm.rank(), comm.size());
  fill_expected_allreduce(expected.data(), count, DataType::float32, ReduceOp::sum, comm.size());
  const RankPlan plan{schedule.algorithm, schedule.collective, schedule.nranks, comm.rank(),
                      schedule.root,      schedule.nchunks,    schedule.program(comm.rank())};
  Executor().run(plan, comm, send.data(), recv.data(), count, DataType::float32, ReduceOp::sum, {});
  return count_mismatches(recv.data(), expected.data(), count, DataType::float32);
}

TEST(AlgorithmRegistry, ToyAlgorithmIsOneFunctionAndOneLine) {
  std::vector<AlgorithmInfo> table(algorithms().begin(), algorithms().end());
  table.push_back({"toy_direct", "every rank to every rank in one step", {Collective::allreduce}, &toy_direct});

  const AlgorithmInfo& toy = find_algorithm("toy_direct", table);
  const Schedule schedule = make_schedule(toy, Collective::allreduce, 5);
  EXPECT_EQ(schedule.algorithm, "toy_direct");
  EXPECT_TRUE(verify(schedule).ok());
  std::atomic<std::int64_t> wrong{0};
  run_threads(5, [&](Communicator& comm) { wrong += wrong_elements(comm, schedule); });
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_THROW(make_schedule(toy, Collective::broadcast, 5), std::invalid_argument);
  try {
    find_algorithm("toy_direct");
    FAIL() << "toy_direct is not in the registry itself";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("valid algorithms: parameter_server, ring"), std::string::npos);
  }
}

TEST(BackendRegistry, ToyBackendIsOneFileAndOneLine) {
  // The registry's lines and the toy's, read as collectives/backend_registry.cpp reads them.
  const std::vector<BackendInfo> table = {
#define RINGLAB_BACKEND RINGLAB_BACKEND_INFO
#include "collectives/backends.def"
      RINGLAB_TOY_LINE
#undef RINGLAB_BACKEND
  };
  // The toy's line read as cli/launch.cpp reads every line (the built-in backends' launchers are
  // ringlab_launchers', which this test does not link).
  const std::vector<BackendLauncher> launchers = {
#define RINGLAB_BACKEND RINGLAB_BACKEND_LAUNCHER
      RINGLAB_TOY_LINE
#undef RINGLAB_BACKEND
  };

  const BackendInfo& toy = find_backend("toy", table);
  EXPECT_TRUE(toy.ranks_are_threads());
  EXPECT_FALSE(toy.uses_devices());
  EXPECT_TRUE(toy.native_allreduce.empty());
  const auto line = std::find_if(launchers.begin(), launchers.end(),
                                 [&](const BackendLauncher& launcher) { return launcher.backend == toy.name; });
  ASSERT_NE(line, launchers.end());
  const LaunchRanks launch = line->launcher->launch;
  ASSERT_NE(launch, nullptr);
  // A job of 4 ranks through the toy's launcher, as run_ranks starts one: a ring all-reduce, each
  // rank's status its rank, so the job's is the largest, 3.
  const Schedule ring = make_schedule(find_algorithm("ring"), Collective::allreduce, 4);
  const JobSetup setup{std::chrono::seconds(60), {}};
  std::atomic<std::int64_t> wrong{0};
  const auto allreduce = [&](Communicator& comm) {
    EXPECT_EQ(comm.backend_name(), "toy");
    wrong += wrong_elements(comm, ring);
    return comm.rank();
  };
  EXPECT_EQ(launch(LaunchRequest{DeviceLayout{4, 0, 0, false}, setup, allreduce}), 3);
  EXPECT_EQ(wrong.load(), 0);
  // The request's set-up reaches the ranks: a fault on rank 2 ends the job, rank 2 prints its error
  // and the launcher throws it as already printed.
  FaultSpec fault;
  fault.rank = 2;
  fault.action = FaultAction::fail;
  fault.point = FaultPoint::setup;
  testing::internal::CaptureStderr();
  EXPECT_THROW(launch(LaunchRequest{DeviceLayout{4, 0, 0, false}, JobSetup{setup.timeout, fault}, allreduce}),
               ReportedError);
  EXPECT_NE(testing::internal::GetCapturedStderr().find(
                "ringlab: rank 2: fault injected: failing at set-up (before the configuration agreement check)"),
            std::string::npos);
  try {
    find_backend("toy");
    FAIL() << "toy is not in the registry itself";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "unknown backend 'toy'; valid backends: auto, mpi, threads, cuda-peer, nccl");
  }
}

TEST(BackendRegistry, NativeBaselinesHaveOneAnswer) {
  ASSERT_NE(native_allreduce_owner(mpi_native), nullptr);
  EXPECT_EQ(native_allreduce_owner(mpi_native)->name, "mpi");
  EXPECT_EQ(native_allreduce_owner(nccl_native)->name, "nccl");
  EXPECT_EQ(native_allreduce_owner("ring"), nullptr);
  EXPECT_EQ(native_allreduce_owner(""), nullptr);
  EXPECT_TRUE(is_native_allreduce("nccl-native"));
  EXPECT_FALSE(is_native_allreduce("interval_paired"));
  EXPECT_EQ(native_allreduce_of("mpi"), mpi_native);
  EXPECT_TRUE(native_allreduce_of("threads").empty());
  EXPECT_TRUE(native_allreduce_of("no-such-backend").empty());
  // Every native baseline is an all-reduce the suite can run, and none is a schedule-based algorithm.
  for (const BackendInfo& backend : backends()) {
    if (backend.native_allreduce.empty()) continue;
    EXPECT_THROW(find_algorithm(backend.native_allreduce), std::invalid_argument) << backend.name;
  }
}

TEST(BackendRegistry, FactsOfTheBuiltInBackends) {
  EXPECT_TRUE(find_backend("threads").ranks_are_threads());
  EXPECT_TRUE(find_backend("cuda-peer").ranks_are_threads());
  EXPECT_FALSE(find_backend("mpi").ranks_are_threads());
  EXPECT_FALSE(find_backend("nccl").ranks_are_threads());
  EXPECT_TRUE(backend_uses_devices("cuda-peer"));
  EXPECT_TRUE(backend_uses_devices("nccl"));
  EXPECT_FALSE(backend_uses_devices("mpi"));
  EXPECT_FALSE(backend_uses_devices("a report's own name"));
  EXPECT_EQ(find_backend("mpi").buffers, BufferMemory::host_or_device);
}

}  // namespace
}  // namespace ringlab
