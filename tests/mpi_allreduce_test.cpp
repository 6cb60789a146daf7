// Every algorithm (and mpi-native) x type x op x count x placement on the MPI backend, at the
// N given by mpiexec -n (type x op: test_type_ops()). Every rank checks its own result; failures on any rank fail the job.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/allreduce_check.hpp"
#include "collectives/execute.hpp"
#include "tests/mpi_test_support.hpp"

namespace ringlab::testing {
namespace {

class AllreduceMpi : public ::testing::TestWithParam<std::string> {};

TEST_P(AllreduceMpi, BitExactForEveryTypeOpCountAndPlacement) {
  MpiCommunicator& comm = world_communicator();
  Implementation implementation;
  for (const Implementation& candidate : implementations(comm.size(), true))
    if (candidate.label == GetParam()) implementation = candidate;
  if (implementation.name.empty()) GTEST_SKIP() << GetParam() << " builds its twin's schedule at N=" << comm.size();
  for (const auto& [type, op] : test_type_ops())
    for (std::int64_t count : test_counts(comm.size()))
      for (bool in_place : {false, true}) {
        const std::size_t segment_bytes = in_place ? 0 : 16384 + 24;
        const CaseResult result = run_allreduce_case(comm, implementation, type, op, count, in_place, segment_bytes);
        EXPECT_EQ(result.wrong, 0) << "rank " << comm.rank() << " " << name_of(type) << " " << name_of(op)
                                   << " count " << count << (in_place ? " in-place" : " out-of-place");
        EXPECT_EQ(result.guard_damaged, 0) << "rank " << comm.rank() << " wrote past the buffer";
      }
}

// The same algorithms over plain MPI messages (RINGLAB_SHM_DISABLE=1, or ranks on other hosts):
// float32 and float16 sums, every count, both placements, receives landing in scratch.
TEST(AllreduceMpiMessages, BitExactOverMpiMessagesOnly) {
  MpiCommunicator comm(MPI_COMM_WORLD, MpiTransport::messages);
  ASSERT_FALSE(comm.uses_shared_memory());
  for (const Implementation& implementation : implementations(comm.size(), false))
    for (DataType type : {DataType::float32, DataType::float16})
      for (std::int64_t count : test_counts(comm.size()))
        for (bool in_place : {false, true}) {
          const CaseResult result = run_allreduce_case(comm, implementation, type, ReduceOp::sum, count, in_place,
                                                       in_place ? 0 : 16384 + 24);
          EXPECT_EQ(result.wrong, 0) << implementation.label << " rank " << comm.rank() << " " << name_of(type)
                                     << " count " << count << (in_place ? " in-place" : " out-of-place");
          EXPECT_EQ(result.guard_damaged, 0) << implementation.label << " rank " << comm.rank();
        }
}

// Buffers from allocate_buffer: on one host, shared memory registered with the transport, so
// sends (every size, direct_min_bytes lowered to 8) are read in place by the receiver.
TEST(AllreduceMpiRegistered, BitExactOutOfRegisteredBuffers) {
  MpiCommunicator comm(MPI_COMM_WORLD);
  comm.set_direct_min_bytes(8);
  if (comm.size() > 1 && comm.uses_shared_memory()) {
    const auto buffer = comm.allocate_buffer(4096, Clock::now() + std::chrono::seconds(60));
    EXPECT_TRUE(buffer->registered()) << buffer->description();
  }
  for (const Implementation& implementation : implementations(comm.size(), false))
    for (DataType type : {DataType::float32, DataType::bfloat16, DataType::int64})
      for (std::int64_t count : test_counts(comm.size()))
        for (bool in_place : {false, true}) {
          const CaseResult result = run_allreduce_case(comm, implementation, type, ReduceOp::sum, count, in_place,
                                                       in_place ? 0 : 16384 + 24, /*backend_buffers=*/true);
          EXPECT_EQ(result.wrong, 0) << implementation.label << " rank " << comm.rank() << " " << name_of(type)
                                     << " count " << count << (in_place ? " in-place" : " out-of-place");
          EXPECT_EQ(result.guard_damaged, 0) << implementation.label << " rank " << comm.rank();
        }
}

TEST(AllreduceMpiBadInput, RanksThatDisagreeFailTogetherNamingBothValues) {
  MpiCommunicator& comm = world_communicator();
  if (comm.size() < 2) GTEST_SKIP() << "needs at least 2 ranks";
  PreparedCollective prepared("interval_paired", Collective::allreduce, {}, comm.size(), comm.rank());
  std::vector<double> data(64, 1.0);
  const DataType type = comm.rank() == 1 ? DataType::float32 : DataType::float64;
  try {
    prepared.run(comm, data.data(), data.data(), 16, type, ReduceOp::sum, {});
    FAIL() << "rank " << comm.rank() << ": the mismatch went unnoticed";
  } catch (const CommunicationError& error) {
    EXPECT_NE(std::string(error.what()).find("rank 0 has [algorithm=interval_paired"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("rank 1 has ["), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("type=float32"), std::string::npos) << error.what();
  }
}

std::vector<std::string> labels() {
  std::vector<std::string> names;
  for (const std::string& label : implementation_labels()) names.push_back(label);
  names.emplace_back("mpi_native");
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllreduceMpi, AllreduceMpi, ::testing::ValuesIn(labels()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

}  // namespace
}  // namespace ringlab::testing
