// ringlab bench's pure parts: the size sweep, the statistics, busbw, refusals, the report shape.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "collectives/backends/threads_communicator.hpp"
#include "report/bandwidth.hpp"
#include "bench/src/bench_options.hpp"
#include "bench/src/bench_report.hpp"
#include "bench/src/rank_cpus_exchange.hpp"
#include "report/rank_placement.hpp"
#include "bench/src/sweep.hpp"

namespace ringlab::bench {
namespace {

using ::testing::HasSubstr;
using report::algbw_gbps;
using report::busbw_gbps;
using report::cpu_list;
using report::describe_placement;
using report::RankCpus;
using report::ResultRow;
using report::summarise;
using report::this_thread_cpus;
using report::TimeStats;

TEST(BenchOptions, FactorSweepMatchesNcclTests) {
  BenchOptions options;
  options.min_bytes = 8;
  options.max_bytes = 1024;
  options.step_factor = 4;
  const auto sizes = sweep_sizes(options, nullptr);
  ASSERT_EQ(sizes.size(), 4U);  // 8, 32, 128, 512
  EXPECT_EQ(sizes.back().bytes, 512);
  EXPECT_EQ(sizes.back().count, 128);
}

TEST(BenchOptions, StepBytesSweepAndRoundingNote) {
  BenchOptions options;
  options.type = DataType::float64;
  options.min_bytes = 10;
  options.max_bytes = 40;
  options.step_bytes = 10;
  std::vector<std::string> notes;
  const auto sizes = sweep_sizes(options, &notes);
  ASSERT_EQ(sizes.size(), 4U);  // 10->8, 20->16, 30->24, 40
  EXPECT_EQ(sizes[0].bytes, 8);
  EXPECT_EQ(sizes[3].bytes, 40);
  ASSERT_EQ(notes.size(), 3U);
  EXPECT_THAT(notes[0], HasSubstr("size 10 B is not a multiple of the float64 size (8 B); rounded down to 8 B"));
}

TEST(BenchOptions, RefusesBadRanges) {
  BenchOptions options;
  options.min_bytes = 1024;
  options.max_bytes = 8;
  EXPECT_THROW(sweep_sizes(options, nullptr), std::invalid_argument);
  options.min_bytes = 8;
  options.max_bytes = 1024;
  options.step_factor = 1;
  EXPECT_THROW(sweep_sizes(options, nullptr), std::invalid_argument);
}

TEST(BenchOptions, RefusesSweepsThatDoNotFitInMemory) {
  BenchOptions options;
  options.max_bytes = std::int64_t{1} << 30;
  try {
    check_memory(options, 8, std::int64_t{4} << 30);
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("needs about 32.00 GiB of buffers"));
  }
  EXPECT_NO_THROW(check_memory(options, 1, std::int64_t{8} << 30));
}

TEST(BenchStatistics, QuantilesAndBusBandwidth) {
  std::vector<double> times;
  for (int i = 1; i <= 100; ++i) times.push_back(i * 1e-6);
  const TimeStats stats = summarise(5050e-6, times);
  EXPECT_DOUBLE_EQ(stats.avg_us, 50.5);
  EXPECT_DOUBLE_EQ(stats.min_us, 1.0);
  EXPECT_DOUBLE_EQ(stats.p50_us, 50.0);
  EXPECT_DOUBLE_EQ(stats.p99_us, 99.0);
  EXPECT_DOUBLE_EQ(stats.max_us, 100.0);
  EXPECT_NEAR(stats.cv, 28.866 / 50.5, 1e-3);
  EXPECT_DOUBLE_EQ(algbw_gbps(1'000'000'000, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(busbw_gbps(2.0, 4), 3.0);
  EXPECT_DOUBLE_EQ(busbw_gbps(2.0, 1), 0.0);
}

TEST(BenchReport, HasTheDocumentedShape) {
  BenchOptions options;
  options.algorithms = {"ring"};
  RunDescription run{"ringlab bench -e 64", "threads", "threads", 2, {}, {}, std::nullopt, {}, {}, {}};
  run.machine.hostname = "host";
  ResultRow row;
  row.algorithm = "ring";
  row.size_bytes = 64;
  row.count = 16;
  row.wrong = 0;
  const nlohmann::json report = make_report(run, options, {row}, true);
  EXPECT_EQ(report.at("schema"), "ringlab.bench/1");
  EXPECT_EQ(report.at("kind"), "measured");
  EXPECT_EQ(report.at("config").at("nranks"), 2);
  EXPECT_EQ(report.at("results").at(0).at("placement"), "out-of-place");
  EXPECT_EQ(report.at("results").at(0).at("type"), "float32");
  EXPECT_TRUE(report.at("machine").contains("memcpy_gbps"));
}

TEST(RankPlacement, CpuListsAreCompact) {
  EXPECT_EQ(cpu_list({}), "");
  EXPECT_EQ(cpu_list({3}), "3");
  EXPECT_EQ(cpu_list({1, 0}), "0,1");
  EXPECT_EQ(cpu_list({0, 1, 2, 3, 6, 8, 9, 9}), "0-3,6,8,9");
  EXPECT_EQ(cpu_list({7, 5, 6, 10, 11, 12}), "5-7,10-12");
}

TEST(RankPlacement, SaysWhetherRanksAreBoundAndWarnsWhenUnboundRanksShareCpus) {
  EXPECT_EQ(describe_placement({}), "");
  EXPECT_EQ(describe_placement({{"0", 1}, {"1", 1}, {"0", 1}, {"1", 1}}), "each rank bound to one CPU: 0:0 1:1 2:0 3:1");
  EXPECT_EQ(describe_placement({{"0-1", 2}, {"2-3", 2}}), "CPUs per rank: 0:0-1 1:2-3");
  EXPECT_EQ(describe_placement({{"0-1", 2}, {"0-1", 2}}), "not bound: every rank may run on CPUs 0-1");
  const std::string oversubscribed = describe_placement({{"0-1", 2}, {"0-1", 2}, {"0-1", 2}, {"0-1", 2}});
  EXPECT_THAT(oversubscribed, ::testing::StartsWith("not bound: every rank may run on CPUs 0-1; 4 ranks on 2 CPUs"));
  EXPECT_THAT(oversubscribed, ::testing::HasSubstr("mpiexec -bind-to core"));
  // Two hosts (mpi.two_hosts_netns): equal masks on different hosts are not "not bound"; this line
  // must agree with the verdict line, which judges per host.
  EXPECT_EQ(describe_placement({{"0-1", 2, "host-a"}, {"0-1", 2, "host-b"}}), "one rank per host, CPUs per rank: 0:0-1 1:0-1");
  EXPECT_EQ(describe_placement({{"0-1", 2, "host-a"}, {"0-1", 2, "host-a"}}), "not bound: every rank may run on CPUs 0-1");
}

TEST(RankPlacement, RankZeroGathersEveryRanksCpus) {
  // Threads of one process share its CPU mask, so every rank reports this thread's.
  const RankCpus own = this_thread_cpus();
  ASSERT_GT(own.count, 0);
  std::vector<RankCpus> gathered;
  std::vector<std::size_t> sizes(3, 99);
  run_threads(3, [&](Communicator& comm) {
    const std::vector<RankCpus> ranks = gather_rank_cpus(comm, Clock::now() + std::chrono::seconds(10));
    sizes[static_cast<std::size_t>(comm.rank())] = ranks.size();
    if (comm.rank() == 0) gathered = ranks;
  });
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 0, 0}));
  ASSERT_EQ(gathered.size(), 3u);
  for (const RankCpus& rank : gathered) {
    EXPECT_EQ(rank.list, own.list);
    EXPECT_EQ(rank.count, own.count);
  }
}

TEST(BenchReport, RecordsTheRanksCpus) {
  BenchOptions options;
  options.algorithms = {"ring"};
  RunDescription run{"ringlab bench -e 64", "threads", "threads", 2, {}, {}, std::nullopt, {}, {"0", "1"},
                     "each rank bound to one CPU: 0:0 1:1"};
  const nlohmann::json report = make_report(run, options, {}, true);
  EXPECT_EQ(report.at("config").at("rank_cpus"), nlohmann::json({"0", "1"}));
  EXPECT_EQ(report.at("config").at("placement"), "each rank bound to one CPU: 0:0 1:1");
  RunDescription predicted{"ringlab simulate", "simulator", "simulator", 2, {}, {}, std::nullopt, {}, {}, {}};
  EXPECT_FALSE(make_report(predicted, options, {}, true).at("config").contains("rank_cpus"));
}

}  // namespace
}  // namespace ringlab::bench
