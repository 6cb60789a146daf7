// The cuda-peer backend on a GPU: every implementation x N (virtual ranks on GPU 0) x type x
// count x op x placement, bit-exact with device buffers, as the threads suite checks the host
// path; errors name the rank, the device and the call and end every rank. Skipped without a GPU.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <mutex>
#include <tuple>

#include "tests/allreduce_check.hpp"
#include "collectives/backends/device_assignment.hpp"
#include "collectives/capabilities.hpp"
#include "collectives/cuda/cuda_peer_communicator.hpp"
#include "tests/cuda/gpu_test_support.hpp"

namespace ringlab::testing {
namespace {

constexpr int rank_counts[] = {2, 3, 4, 8};

using Param = std::tuple<std::string, int, DataType>;  // implementation label, N, type

class CudaPeerAllreduce : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { RINGLAB_SKIP_WITHOUT_GPU(); }
};

TEST_P(CudaPeerAllreduce, BitExactForEveryCountOpAndPlacement) {
  const auto& [label, nranks, type] = GetParam();
  const Implementation implementation = implementation_for(label, nranks);
  if (implementation.name.empty()) GTEST_SKIP() << label << " builds its twin's schedule at N=" << nranks;
  const std::vector<int> devices = assign_devices({nranks, nranks, 1}, cuda::visible_device_count());
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  for (ReduceOp op : all_reduce_ops)
    for (bool in_place : {false, true}) {
      const std::size_t segment_bytes = in_place ? 0 : 65536 + 24;
      cuda::run_cuda_peer(devices, [&](Communicator& comm) {
        for (std::int64_t count : test_counts(nranks)) {
          const CaseResult result = run_allreduce_case(comm, implementation, type, op, count, in_place, segment_bytes, true);
          if (result.wrong != 0 || result.guard_damaged != 0) {
            const std::lock_guard lock(failures_mutex);
            failures.push_back(fmt::format("rank {} op {} count {} {}: {} wrong elements, {} guard bytes damaged",
                                           comm.rank(), name_of(op), count, in_place ? "in-place" : "out-of-place",
                                           result.wrong, result.guard_damaged));
          }
        }
      });
    }
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(CudaPeerAllreduce, CudaPeerAllreduce,
                         ::testing::Combine(::testing::ValuesIn(implementation_labels()), ::testing::ValuesIn(rank_counts),
                                            ::testing::ValuesIn(all_data_types)),
                         [](const ::testing::TestParamInfo<Param>& param_info) {
                           return fmt::format("{}_N{}_{}", std::get<0>(param_info.param), std::get<1>(param_info.param),
                                              name_of(std::get<2>(param_info.param)));
                         });

TEST(CudaPeerErrors, OutOfMemoryNamesRankDeviceAndCallAndEndsEveryRank) {
  RINGLAB_SKIP_WITHOUT_GPU();
  try {
    cuda::run_cuda_peer({0, 0}, [](Communicator& comm) {
      if (comm.rank() == 1) collective_buffer(comm, std::size_t{1} << 60, Clock::now());
      std::byte token{};
      comm.post_recv({&token, 1}, 1 - comm.rank(), 0)->wait(Clock::now() + std::chrono::seconds(60), "receive");
    });
    ADD_FAILURE() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("rank 1, device 0: cudaMalloc(1152921504606846976 bytes) failed: out of memory"),
              std::string::npos)
        << error.what();
  }
}

TEST(CudaPeerErrors, MoreRanksThanGpusWithoutRanksPerGpuIsRefused) {
  RINGLAB_SKIP_WITHOUT_GPU();
  const int gpus = cuda::visible_device_count();
  EXPECT_THROW(assign_devices({gpus + 1, 0, 0}, gpus), std::invalid_argument);
}

}  // namespace
}  // namespace ringlab::testing
