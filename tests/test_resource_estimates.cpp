// Issue 27, section 2: the estimates that refuse runaway jobs before they start (threads ranks,
// verifier state and work, flow-level flows) and the smallest segment a report may ask for.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "simulator/compare.hpp"
#include "simulator/flow_work.hpp"
#include "collectives/segment_limits.hpp"
#include "collectives/verify.hpp"

namespace ringlab {
namespace {

using ::testing::HasSubstr;

constexpr std::int64_t gib = std::int64_t{1} << 30;

std::string refusal(int ranks, double buffer_bytes, std::int64_t available_bytes) {
  try {
    check_threads_job(ranks, buffer_bytes, available_bytes);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(ThreadsJobEstimate, CountsMailboxesInSixtyFourBits) {
  const ThreadsJobEstimate job = estimate_threads_job(100000);
  EXPECT_EQ(job.mailboxes, std::int64_t{10000000000});  // 1e10: past a 32-bit int
  EXPECT_DOUBLE_EQ(job.mailbox_bytes, 1e10 * static_cast<double>(ThreadsWorld::bytes_per_mailbox()));
  EXPECT_GT(job.per_rank_bytes, 100000.0 * (128 << 10));
  EXPECT_GT(ThreadsWorld::bytes_per_mailbox(), 1000);  // the struct and its two queues' first blocks
}

TEST(ThreadsJobEstimate, RefusesMoreRanksThanTheCapBeforeAllocating) {
  EXPECT_THAT(refusal(20000, 0, 1000 * gib), HasSubstr("--ranks 20000 is more than the threads backend's limit of 4096"));
  EXPECT_THAT(refusal(100000, 0, 0), HasSubstr("limit of 4096 ranks"));
  EXPECT_THAT(refusal(0, 0, 0), HasSubstr("--ranks must be at least 1"));
  EXPECT_THROW(ThreadsWorld(ThreadsWorld::max_ranks + 1), std::invalid_argument);
}

TEST(ThreadsJobEstimate, RefusesAJobLargerThanTheAvailableMemory) {
  // 4096 ranks: 16.8 million mailboxes, about 25 GiB; refused with 8 GiB available.
  const std::string message = refusal(4096, 0, 8 * gib);
  EXPECT_THAT(message, HasSubstr("--ranks 4096 needs about"));
  EXPECT_THAT(message, HasSubstr("16777216 mailboxes between pairs of ranks"));
  EXPECT_THAT(message, HasSubstr("but only 8.00 GiB is available; lower --ranks"));
  // The buffers count too: 4 ranks fit in 1 GiB alone, not with 2 GiB of buffers.
  EXPECT_EQ(refusal(4, 0, gib), "");
  EXPECT_THAT(refusal(4, 2.0 * gib, gib), HasSubstr("buffers: 2.00 GiB"));
  EXPECT_EQ(refusal(4096, 0, 0), "");  // unknown available memory: only the cap applies
}

// A header with no ops: N ranks, `steps` empty steps on rank 0.
Schedule empty_schedule(int nranks, std::int64_t nchunks, std::size_t steps) {
  Schedule schedule;
  schedule.algorithm = "empty";
  schedule.nranks = nranks;
  schedule.nchunks = nchunks;
  schedule.programs.resize(static_cast<std::size_t>(nranks));
  schedule.programs[0].steps.resize(steps);
  return schedule;
}

TEST(VerifierCost, CountsBitsetsOpsAndRankVisits) {
  const VerifierCost ring = verifier_cost(make_schedule("ring", Collective::allreduce, 1024));
  // 1024 x 1024 chunks x 16 words x 8 B = 128 MiB of bitsets, plus 1024 x 2046 x 2 ops.
  EXPECT_GT(ring.state_bytes, 128.0 * (1 << 20));
  EXPECT_LT(ring.state_bytes, max_verifier_state_bytes);
  EXPECT_LT(ring.work, max_verifier_work);
  EXPECT_TRUE(verifier_cost_problem(make_schedule("ring", Collective::allreduce, 1024)).empty());
  const VerifierCost steps = verifier_cost(empty_schedule(60000, 1, 80000));
  EXPECT_GE(steps.work, 60000.0 * 80000);
}

TEST(VerifierCost, RefusesTooMuchStateBeforeAllocating) {
  // Issue 27: 2048 ranks x 8192 chunks (4 GiB of bitsets) reached 4.2 GB; 1024 x 8192 took 1 GB.
  for (const int nranks : {2048, 1024}) {
    const VerifyResult result = verify(empty_schedule(nranks, 8192, 0));
    ASSERT_FALSE(result.ok());
    EXPECT_THAT(result.errors.front(), HasSubstr(fmt::format("{} ranks x 8192 chunks need about", nranks)));
    EXPECT_THAT(result.errors.front(), HasSubstr("the limit is 0.5 GiB: verify a schedule with fewer chunks or ranks"));
  }
  EXPECT_FALSE(verifier_cost_problem(make_schedule("ring", Collective::allreduce, 2048)).empty());
}

TEST(VerifierCost, RefusesTooMuchWork) {
  const VerifyResult result = verify(empty_schedule(60000, 1, 80000));
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.errors.front(), HasSubstr("over 80000 steps need about 4.91e+09 verifier operations"));
}

TEST(VerifierCost, CountsEveryViolationButDescribesOnlyTheFirstTwenty) {
  // Every (rank, chunk) ends wrong: 256 x 4096 violations, only the first 20 described.
  const VerifyResult result = verify(empty_schedule(256, 4096, 0));
  EXPECT_EQ(result.error_count, 256 * 4096);
  EXPECT_EQ(result.errors.size(), 20u);
}

TEST(FlowLevelFlows, CountsEverySegmentOfEverySend) {
  // Ring on N ranks: 2(N-1) steps of one send per rank, one segment each at 8 B.
  const Schedule ring = make_schedule("ring", Collective::allreduce, 5000);
  EXPECT_DOUBLE_EQ(simulator::flow_level_flows(ring, 2, DataType::float32, 1 << 20), 2.0 * 4999 * 5000);
  // 4 ranks, 1 MiB chunks in 4 KiB segments: 256 flows a send, 6 steps, 4 ranks.
  const Schedule small = make_schedule("ring", Collective::allreduce, 4);
  EXPECT_DOUBLE_EQ(simulator::flow_level_flows(small, 1 << 20, DataType::float32, 4096), 256.0 * 6 * 4);
  EXPECT_DOUBLE_EQ(simulator::flow_level_flows(small, 1 << 20, DataType::float32, 0), 6.0 * 4);  // whole transfers
  // The topology: ring on 200000 ranks is 8e10 flows, far past the limit.
  EXPECT_GT(simulator::flow_level_flows(make_schedule("ring", Collective::allreduce, 200000), 2, DataType::float32, 0),
            100 * simulator::max_simulated_flows);
}

TEST(CompareSegments, AReportWithSegmentsBelowTheMinimumIsRefused) {
  std::ifstream sample(RINGLAB_SOURCE_DIR "/plotting/tests/sample-report-n2.json");
  nlohmann::json document = nlohmann::json::parse(sample);
  const auto path = std::filesystem::temp_directory_path() / "ringlab-resource-estimates-segment.json";
  for (const std::int64_t segment : {std::int64_t{1}, min_segment_bytes - 1, std::int64_t{0}, min_segment_bytes}) {
    document["config"]["segment_bytes"] = segment;
    std::ofstream(path) << document.dump();
    if (segment == 0 || segment >= min_segment_bytes) {
      EXPECT_EQ(simulator::read_measured_report(path.string()).segment_bytes, segment);
      continue;
    }
    try {
      simulator::read_measured_report(path.string());
      ADD_FAILURE() << "segment_bytes " << segment << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(fmt::format("config.segment_bytes is {}; the smallest segment the simulator "
                                                      "prices is 4096 B",
                                                      segment)));
    }
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ringlab
