// Every algorithm (and mpi-native) x type x op x count x placement on the MPI backend, at the
// N given by mpiexec -n. Every rank checks its own result; failures on any rank fail the job.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "allreduce_check.hpp"
#include "mpi_test_support.hpp"

namespace ringlab::testing {
namespace {

class AllreduceMpi : public ::testing::TestWithParam<std::string> {};

TEST_P(AllreduceMpi, BitExactForEveryTypeOpCountAndPlacement) {
  MpiCommunicator& comm = world_communicator();
  Implementation implementation;
  for (const Implementation& candidate : implementations(comm.size(), true))
    if (candidate.label == GetParam()) implementation = candidate;
  for (DataType type : all_data_types)
    for (ReduceOp op : all_reduce_ops)
      for (std::int64_t count : test_counts(comm.size()))
        for (bool in_place : {false, true}) {
          const std::size_t segment_bytes = in_place ? 0 : 65536 + 24;
          const CaseResult result = run_allreduce_case(comm, implementation, type, op, count, in_place, segment_bytes);
          EXPECT_EQ(result.wrong, 0) << "rank " << comm.rank() << " " << name_of(type) << " " << name_of(op)
                                     << " count " << count << (in_place ? " in-place" : " out-of-place");
          EXPECT_EQ(result.guard_damaged, 0) << "rank " << comm.rank() << " wrote past the buffer";
        }
}

std::vector<std::string> labels() {
  std::vector<std::string> names;
  for (const Implementation& implementation : implementations(4, true)) names.push_back(implementation.label);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllreduceMpi, AllreduceMpi, ::testing::ValuesIn(labels()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

}  // namespace
}  // namespace ringlab::testing
