// A new algorithm or backend is one file plus one registry line: these tests add a toy of each
// to a copy of its registry (standing in for the line in algorithms/registry.cpp or
// backend_registry.cpp), find it through the registry's look-ups and run an all-reduce with it.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backend_registry.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/expected_values.hpp"
#include "report/nccl_tests_format.hpp"
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

// The toy backend's file: a communicator whose transport is a threads world's (the required
// transport: rank, size, name, send, receive, barrier, abort); everything else is the defaults.
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

using MakeCommunicator = std::function<std::unique_ptr<Communicator>(const std::shared_ptr<ThreadsWorld>&, int rank)>;

// Runs one float32 sum all-reduce of `algorithm` (a registry entry) on `nranks` threads, each rank's
// communicator made by `make`, and returns the elements that differ from the expected values.
std::int64_t wrong_elements(const AlgorithmInfo& algorithm, int nranks, const MakeCommunicator& make) {
  constexpr std::int64_t count = 1001;
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  std::atomic<std::int64_t> wrong{0};
  const auto world = std::make_shared<ThreadsWorld>(nranks);
  run_threads(world, [&](int rank) { return make(world, rank); }, [&](Communicator& comm) {
    std::vector<float> send(count), recv(count), expected(count);
    fill_input(send.data(), count, DataType::float32, ReduceOp::sum, comm.rank(), nranks);
    fill_expected_allreduce(expected.data(), count, DataType::float32, ReduceOp::sum, nranks);
    const RankPlan plan{schedule.algorithm, schedule.collective, schedule.nranks, comm.rank(),
                        schedule.root,      schedule.nchunks,    schedule.program(comm.rank())};
    Executor().run(plan, comm, send.data(), recv.data(), count, DataType::float32, ReduceOp::sum, {});
    wrong += count_mismatches(recv.data(), expected.data(), count, DataType::float32);
  });
  return wrong.load();
}

std::unique_ptr<Communicator> threads_rank(const std::shared_ptr<ThreadsWorld>& world, int rank) {
  return std::make_unique<ThreadsCommunicator>(world, rank);
}

TEST(AlgorithmRegistry, ToyAlgorithmIsOneFunctionAndOneLine) {
  std::vector<AlgorithmInfo> table(algorithms().begin(), algorithms().end());
  table.push_back({"toy_direct", "every rank to every rank in one step", {Collective::allreduce}, &toy_direct});

  const AlgorithmInfo& toy = find_algorithm("toy_direct", table);
  const Schedule schedule = make_schedule(toy, Collective::allreduce, 5);
  EXPECT_EQ(schedule.algorithm, "toy_direct");
  EXPECT_TRUE(verify(schedule).ok());
  EXPECT_EQ(wrong_elements(toy, 5, &threads_rank), 0);
  EXPECT_THROW(make_schedule(toy, Collective::broadcast, 5), std::invalid_argument);
  try {
    find_algorithm("toy_direct");
    FAIL() << "toy_direct is not in the registry itself";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("valid algorithms: parameter_server, ring"), std::string::npos);
  }
}

TEST(BackendRegistry, ToyBackendIsOneFileAndOneLine) {
  std::vector<BackendInfo> table(backends().begin(), backends().end());
  table.push_back({"toy", RankStart::threads, BufferMemory::host, {}});

  const BackendInfo& toy = find_backend("toy", table);
  EXPECT_TRUE(toy.ranks_are_threads());
  EXPECT_FALSE(toy.uses_devices());
  EXPECT_TRUE(toy.native_allreduce.empty());
  EXPECT_EQ(wrong_elements(find_algorithm("ring"), 4, [](const std::shared_ptr<ThreadsWorld>& world, int rank) {
              return std::make_unique<ToyCommunicator>(world, rank);
            }),
            0);
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

// report/ reads a report's backend name as data, below the registry: the two must agree.
TEST(BackendRegistry, ReportsNameTheSameDeviceBackends) {
  for (const BackendInfo& backend : backends())
    EXPECT_EQ(report::report_backend_uses_devices(backend.name), backend.uses_devices()) << backend.name;
}

}  // namespace
}  // namespace ringlab
