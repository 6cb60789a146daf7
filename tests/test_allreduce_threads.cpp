// Every algorithm x N x type x count (x every op x in-place/out-of-place inside each test) on the
// threads backend, bit-exact against nccl-tests-style expected values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <mutex>
#include <tuple>

#include "tests/allreduce_check.hpp"
#include "collectives/backends/threads_communicator.hpp"

namespace ringlab::testing {
namespace {

constexpr int rank_counts[] = {1, 2, 3, 4, 5, 7, 8};
constexpr int count_slots = 7;  // index into test_counts(N); slots past its end are skipped

using Param = std::tuple<std::string, int, DataType, int>;  // implementation label, N, type, count slot

class AllreduceThreads : public ::testing::TestWithParam<Param> {};

TEST_P(AllreduceThreads, BitExactForEveryOpAndPlacement) {
  const auto& [label, nranks, type, slot] = GetParam();
  const auto counts = test_counts(nranks);
  if (slot >= static_cast<int>(counts.size())) GTEST_SKIP() << "count slot duplicates another for N=" << nranks;
  const std::int64_t count = counts[static_cast<std::size_t>(slot)];
  const Implementation implementation = implementation_for(label, nranks);
  if (implementation.name.empty()) GTEST_SKIP() << label << " builds its twin's schedule at N=" << nranks;
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  for (ReduceOp op : all_reduce_ops) {
    for (bool in_place : {false, true}) {
      // Odd segment sizes exercise segmentation across chunk boundaries: 16 KiB + 24 cuts every
      // type's chunks of the largest count (2^18 + 3 in CTest) into several segments up to N = 8.
      const std::size_t segment_bytes = in_place ? 0 : 16384 + 24;
      run_threads(nranks, [&](Communicator& comm) {
        const CaseResult result = run_allreduce_case(comm, implementation, type, op, count, in_place, segment_bytes);
        if (result.wrong != 0 || result.guard_damaged != 0) {
          const std::lock_guard lock(failures_mutex);
          failures.push_back(fmt::format("rank {} op {} {}: {} wrong elements, {} guard bytes damaged", comm.rank(),
                                         name_of(op), in_place ? "in-place" : "out-of-place", result.wrong,
                                         result.guard_damaged));
        }
      });
    }
  }
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(AllreduceThreads, AllreduceThreads,
                         ::testing::Combine(::testing::ValuesIn(implementation_labels()), ::testing::ValuesIn(rank_counts),
                                            ::testing::ValuesIn(all_data_types), ::testing::Range(0, count_slots)),
                         [](const ::testing::TestParamInfo<Param>& param_info) {
                           return fmt::format("{}_N{}_{}_count{}", std::get<0>(param_info.param), std::get<1>(param_info.param),
                                              name_of(std::get<2>(param_info.param)), std::get<3>(param_info.param));
                         });

}  // namespace
}  // namespace ringlab::testing
