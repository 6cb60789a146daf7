// ringlab bench's pure parts: the size sweep, the statistics, busbw, refusals, the report shape.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench_options.hpp"
#include "report.hpp"
#include "sweep.hpp"

namespace ringlab::bench {
namespace {

using ::testing::HasSubstr;

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
  RunDescription run{"ringlab bench -e 64", "threads", "threads", 2, {}, {}, std::nullopt, {}};
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

}  // namespace
}  // namespace ringlab::bench
