// Broken schedules and bad input: each is refused with a message that says what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/schedule_io.hpp"
#include "collectives/verify.hpp"

namespace ringlab {
namespace {

using ::testing::HasSubstr;

// An explicit copy of a built-in schedule that tests can break.
Schedule editable(std::string_view algorithm, Collective collective, int nranks) {
  const Schedule built = make_schedule(algorithm, collective, nranks);
  Schedule copy = make_explicit(algorithm, collective, nranks, built.nchunks);
  copy.root = built.root;
  for (int rank = 0; rank < nranks; ++rank) copy.programs[static_cast<std::size_t>(rank)] = built.program(rank);
  return copy;
}

std::string first_error(const Schedule& schedule) {
  const VerifyResult result = verify(schedule);
  return result.errors.empty() ? std::string("(verified)") : result.errors.front();
}

TEST(VerifierErrors, UnmatchedSendNamesRankStepAndPeer) {
  Schedule schedule = editable("ring", Collective::allreduce, 4);
  schedule.programs[2].steps[1].pop_back();  // drop rank 2's receive in step 1
  const std::string error = first_error(schedule);
  EXPECT_THAT(error, HasSubstr("ring allreduce, 4 ranks: rank 1, step 1: send of chunks"));
  EXPECT_THAT(error, HasSubstr("has no matching receive at rank 2"));
}

TEST(VerifierErrors, ContributionCountedTwice) {
  Schedule schedule = editable("ring", Collective::allreduce, 3);
  // Rank 0 reduces chunk 1 from rank 2 in step 0 as it should; make rank 2 send it again in step 1.
  schedule.programs[2].steps[1].push_back({OpKind::send, 0, {1, 2}});
  schedule.programs[0].steps[1].push_back({OpKind::recv_reduce, 2, {1, 2}});
  EXPECT_THAT(first_error(schedule), HasSubstr("twice"));
}

TEST(VerifierErrors, MissingStepLeavesChunksIncomplete) {
  Schedule schedule = editable("interval_paired", Collective::allreduce, 8);
  for (RankProgram& program : schedule.programs) program.steps.pop_back();
  const VerifyResult result = verify(schedule);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.errors.front(), HasSubstr("ends holding ranks {"));
  EXPECT_THAT(result.errors.front(), HasSubstr("expected all ranks"));
}

TEST(VerifierErrors, TwoPlainReceivesIntoOneChunk) {
  Schedule schedule = editable("parameter_server", Collective::allreduce, 3);
  // In step 1 rank 1 receives chunk 0 from the server (rank 0); add a second plain receive of it.
  schedule.programs[2].steps[1].push_back({OpKind::send, 1, {0, 1}});
  schedule.programs[1].steps[1].push_back({OpKind::recv, 2, {0, 1}});
  EXPECT_THAT(first_error(schedule), HasSubstr("written by a plain recv and another receive in the same step"));
}

TEST(VerifierErrors, ReducingUndefinedData) {
  Schedule schedule = editable("ring", Collective::allgather, 3);
  schedule.programs[0].steps[0][1].kind = OpKind::recv_reduce;
  EXPECT_THAT(first_error(schedule), HasSubstr("never defined"));
}

TEST(VerifierErrors, MalformedOpsAreReportedNotCrashed) {
  Schedule schedule = editable("ring", Collective::allreduce, 4);
  schedule.programs[1].steps[0][0].peer = 9;
  schedule.programs[2].steps[0][0].chunks = {3, 2};
  schedule.programs[3].steps[0][0].peer = 3;
  const VerifyResult result = verify(schedule);
  ASSERT_EQ(result.error_count, 3);
  EXPECT_THAT(result.errors[0], HasSubstr("rank 1, step 0: send names peer 9, outside [0, 4)"));
  EXPECT_THAT(result.errors[1], HasSubstr("chunk range [3, 2)"));
  EXPECT_THAT(result.errors[2], HasSubstr("names itself as peer"));
  EXPECT_THROW(plan_for_rank(schedule, 0), std::invalid_argument);
}

TEST(VerifierErrors, MalformedScheduleIsNotPriced) {
  Schedule schedule = editable("ring", Collective::allreduce, 3);
  schedule.programs[1].steps[0][0].peer = 1000000;
  EXPECT_FALSE(verify(schedule).ok());
  EXPECT_THROW(critical_path(schedule, {1e-6, 1e-9, 1e-10}, 1e6), std::invalid_argument);
}

TEST(VerifierErrors, HugeChunkCountsAreRefusedBeforeAllocating) {
  Schedule schedule = make_explicit("tiny", Collective::allreduce, 2, std::int64_t{1} << 40);
  const VerifyResult result = verify(schedule);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.errors.front(), HasSubstr("GiB of verifier state"));
}

TEST(VerifierErrors, MismatchedChunkRanges) {
  Schedule schedule = editable("ring", Collective::allreduce, 4);
  schedule.programs[1].steps[0][1].chunks = {1, 2};  // rank 0 sends [3,4) to rank 1
  EXPECT_THAT(first_error(schedule), HasSubstr("is matched by a send of chunks"));
}

TEST(BadInput, UnknownNamesListTheValidOnes) {
  try {
    make_schedule("rign", Collective::allreduce, 4);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown algorithm 'rign'; valid algorithms: parameter_server, ring, "
                                        "interval_paired, halving_doubling, recursive_doubling, swing, swing_latency, bine, bruck, bruck_bounded, double_binary_tree, hierarchical"));
  }
  EXPECT_THROW(parse_collective("allgatherv"), std::invalid_argument);
  EXPECT_THROW(parse_data_type("float8"), std::invalid_argument);
  EXPECT_THROW(parse_reduce_op("xor"), std::invalid_argument);
  try {
    parse_collective("allgatherv");
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("valid collectives: allreduce, reduce_scatter, allgather, broadcast"));
  }
}

TEST(BadInput, RankCountsRootsShardsAndCollectives) {
  EXPECT_THROW(make_schedule("ring", Collective::allreduce, 0), std::invalid_argument);
  EXPECT_THROW(make_schedule("ring", Collective::allreduce, -3), std::invalid_argument);
  EXPECT_THROW(make_schedule("parameter_server", Collective::allreduce, 4, {4, 1}), std::invalid_argument);
  EXPECT_THROW(make_schedule("parameter_server", Collective::allreduce, 4, {0, 5}), std::invalid_argument);
  try {
    make_schedule("halving_doubling", Collective::broadcast, 4);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("algorithm 'halving_doubling' has no broadcast schedule; it supports: allreduce"));
  }
}

TEST(BadInput, CountsThatOverflow) {
  EXPECT_THROW(checked_byte_count(-1, DataType::float32), std::invalid_argument);
  EXPECT_THROW(checked_byte_count(std::int64_t{1} << 62, DataType::float64), std::invalid_argument);
  EXPECT_EQ(checked_byte_count(1000, DataType::bfloat16), 2000U);
}

TEST(BadInput, MalformedScheduleJsonNamesThePath) {
  nlohmann::json document = to_json(make_schedule("ring", Collective::allreduce, 3));
  document["ranks"][1]["steps"][0][0]["chunks"] = {1};
  try {
    schedule_from_json(document);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("ranks[1].steps[0][0].chunks: expected [begin, end]"));
  }
  document = to_json(make_schedule("ring", Collective::allreduce, 3));
  document["schema"] = "ringlab.schedule/9";
  EXPECT_THROW(schedule_from_json(document), std::invalid_argument);
  document = to_json(make_schedule("ring", Collective::allreduce, 3));
  document["nranks"] = 1000000000;
  EXPECT_THROW(schedule_from_json(document), std::invalid_argument);
  document = to_json(make_schedule("ring", Collective::allreduce, 3));
  document["nchunks"] = std::int64_t{1} << 31;
  EXPECT_THROW(schedule_from_json(document), std::invalid_argument);
  document = to_json(make_schedule("ring", Collective::allreduce, 3));
  document["ranks"][2]["steps"][0][1]["op"] = "recv_reduce_twice";
  EXPECT_THROW(schedule_from_json(document), std::invalid_argument);
}

TEST(BadInput, RanksThatDisagreeFailTogetherNamingBothValues) {
  std::mutex mutex;
  std::vector<std::string> messages;
  EXPECT_THROW(run_threads(4,
                           [&](Communicator& comm) {
                             PreparedCollective prepared("ring", Collective::allreduce, {}, 4, comm.rank());
                             const std::int64_t count = comm.rank() == 2 ? 10 : 12;
                             std::vector<float> data(12, 1.0f);
                             try {
                               prepared.run(comm, data.data(), data.data(), count, DataType::float32, ReduceOp::sum,
                                            {});
                             } catch (const CommunicationError& error) {
                               const std::lock_guard lock(mutex);
                               messages.emplace_back(error.what());
                               throw;
                             }
                           }),
               CommunicationError);
  ASSERT_EQ(messages.size(), 4U);  // every rank fails, none hangs
  for (const std::string& message : messages) {
    EXPECT_THAT(message, HasSubstr("rank 0 has [algorithm=ring"));
    EXPECT_THAT(message, HasSubstr("count=12"));
    EXPECT_THAT(message, HasSubstr("rank 2 has ["));
    EXPECT_THAT(message, HasSubstr("count=10"));
  }
}

TEST(BadInput, NativeBaselineNeedsMpi) {
  EXPECT_THROW(run_threads(2,
                           [](Communicator& comm) {
                             PreparedCollective prepared(mpi_native, Collective::allreduce, {}, 2, comm.rank());
                             float value = 1.0f;
                             prepared.run(comm, &value, &value, 1, DataType::float32, ReduceOp::sum, {});
                           }),
               std::invalid_argument);
}

TEST(BadInput, NcclNativeNeedsTheNcclBackend) {
  try {
    run_threads(2, [](Communicator& comm) {
      PreparedCollective prepared(nccl_native, Collective::allreduce, {}, 2, comm.rank());
      float value = 1.0f;
      prepared.run(comm, &value, &value, 1, DataType::float32, ReduceOp::sum, {});
    });
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "'nccl-native' needs the nccl backend; the threads backend has no native all-reduce");
  }
}

}  // namespace
}  // namespace ringlab
