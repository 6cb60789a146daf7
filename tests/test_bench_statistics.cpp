// report/statistics.hpp, bench/src/converge_rule.hpp and clock_offset.hpp: every statistic from one
// sample set, the median's order-statistic interval, the --converge rule and the clock-offset estimate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "collectives/clock_offset.hpp"
#include "bench/src/converge_rule.hpp"
#include "report/statistics.hpp"

namespace ringlab::bench {
namespace {

using ::testing::HasSubstr;
using report::median_interval;
using report::median_interval_coverage;
using report::median_interval_rank;
using report::MedianInterval;
using report::SkewStats;
using report::summarise;
using report::summarise_skew;
using report::TimeStats;

void expect_ordered(const TimeStats& stats, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_LE(stats.min_us, stats.p50_us);
  EXPECT_LE(stats.p50_us, stats.p99_us);
  EXPECT_LE(stats.p99_us, stats.max_us);
  EXPECT_LE(stats.min_us, stats.avg_us);
  EXPECT_LE(stats.avg_us, stats.max_us);
  ASSERT_TRUE(stats.p50_ci95.has_value());
  EXPECT_LE(stats.p50_ci95->low, stats.p50_us);
  EXPECT_LE(stats.p50_us, stats.p50_ci95->high);
  EXPECT_GE(stats.p50_ci95->coverage, 0.0);
  EXPECT_LE(stats.p50_ci95->coverage, 1.0);
  EXPECT_GE(stats.cv, 0.0);
}

TEST(BenchSampleStatistics, OrderedByConstructionOnRandomSets) {
  std::mt19937_64 random(28);
  std::uniform_int_distribution<int> count(1, 300);
  std::exponential_distribution<double> heavy(1e4);
  std::uniform_real_distribution<double> uniform(1e-6, 1e-5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> samples(static_cast<std::size_t>(count(random)));
    for (double& sample : samples) sample = trial % 2 ? heavy(random) : uniform(random);
    // The loop figure is kept apart: even one far below every call cannot pull avg under min.
    const TimeStats stats = summarise(1e-12, samples);
    expect_ordered(stats, "trial " + std::to_string(trial));
    ASSERT_TRUE(stats.loop_avg_us.has_value());
    EXPECT_LT(*stats.loop_avg_us, stats.min_us);
  }
}

TEST(BenchSampleStatistics, OrderedByConstructionOnAdversarialSets) {
  const std::vector<std::vector<double>> sets = {
      {0.1, 0.1, 0.1},                                  // the mean of equal values rounds off them
      std::vector<double>(1000, 0.1),
      {3e-6},                                           // one sample
      {1e-9, 1e3},                                      // far apart
      {5e-6, 5e-6, 5e-6, 5e-6, 1.0},                    // one huge outlier
      {1.0, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9},        // outlier first, unsorted
      {0.0, 0.0, 0.0},                                  // zero-time calls
      {2e-6, 1e-6},
  };
  for (std::size_t i = 0; i < sets.size(); ++i) expect_ordered(summarise(0, sets[i]), "set " + std::to_string(i));
}

TEST(BenchSampleStatistics, KnownValues) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i * 1e-6);
  const TimeStats stats = summarise(5050e-6, samples);
  EXPECT_DOUBLE_EQ(stats.avg_us, 50.5);
  EXPECT_DOUBLE_EQ(*stats.loop_avg_us, 50.5);
  EXPECT_DOUBLE_EQ(stats.min_us, 1.0);
  EXPECT_DOUBLE_EQ(stats.p50_us, 50.0);
  EXPECT_DOUBLE_EQ(stats.p99_us, 99.0);
  EXPECT_DOUBLE_EQ(stats.max_us, 100.0);
  // n = 100: [x(40), x(61)], the textbook 96.5 % interval.
  EXPECT_DOUBLE_EQ(stats.p50_ci95->low, 40.0);
  EXPECT_DOUBLE_EQ(stats.p50_ci95->high, 61.0);
  EXPECT_NEAR(stats.p50_ci95->coverage, 0.9647997997822952, 1e-12);
  const TimeStats none = summarise(1.0, {});
  EXPECT_EQ(none.avg_us, 0.0);
  EXPECT_FALSE(none.p50_ci95.has_value());
}

TEST(MedianInterval, RanksAndCoverageOfKnownCases) {
  // Exact binomial values: coverage of [x(j), x(n+1-j)] = 1 - 2 P(Binomial(n, 1/2) <= j - 1).
  EXPECT_EQ(median_interval_rank(20, 0.95), 6);
  EXPECT_NEAR(median_interval_coverage(20, 6), 0.9586105346679688, 1e-12);
  EXPECT_NEAR(median_interval_coverage(20, 7), 0.8846817016601562, 1e-12);
  EXPECT_EQ(median_interval_rank(100, 0.95), 40);
  EXPECT_EQ(median_interval_rank(1000, 0.95), 469);
  EXPECT_NEAR(median_interval_coverage(1000, 469), 0.9537088026395019, 1e-9);
  EXPECT_EQ(median_interval_rank(6, 0.95), 1);
  EXPECT_NEAR(median_interval_coverage(6, 1), 0.96875, 1e-15);
}

TEST(MedianInterval, TooFewSamplesGiveTheWidestIntervalAndItsCoverage) {
  const MedianInterval five = median_interval({1, 2, 3, 4, 5}, 0.95);
  EXPECT_EQ(five.low, 1);
  EXPECT_EQ(five.high, 5);
  EXPECT_NEAR(five.coverage, 0.9375, 1e-15);  // 1 - 2 / 2^5: below 95 %, and said so
  const MedianInterval one = median_interval({7}, 0.95);
  EXPECT_EQ(one.low, 7);
  EXPECT_EQ(one.high, 7);
  EXPECT_EQ(one.coverage, 0.0);
  const MedianInterval two = median_interval({1, 2}, 0.95);
  EXPECT_EQ(two.low, 1);
  EXPECT_EQ(two.high, 2);
  EXPECT_NEAR(two.coverage, 0.5, 1e-15);
}

TEST(MedianInterval, LargeSampleCountsStayExactAndNarrowest) {
  for (std::int64_t n : {std::int64_t{5000}, std::int64_t{123457}, max_converge_calls}) {
    const std::int64_t j = median_interval_rank(n, 0.95);
    EXPECT_GE(median_interval_coverage(n, j), 0.95) << n;
    EXPECT_LT(median_interval_coverage(n, j + 1), 0.95) << n;
    // Normal approximation: j ~ n/2 - 0.98 sqrt(n).
    EXPECT_NEAR(static_cast<double>(j), static_cast<double>(n) / 2.0 - 0.98 * std::sqrt(static_cast<double>(n)), 3.0) << n;
  }
}

TEST(MedianInterval, CoversTheTrueMedianAsOftenAsItSays) {
  std::mt19937_64 random(2028);
  std::exponential_distribution<double> exponential(1.0);  // median ln 2
  const double median = std::log(2.0);
  const int trials = 4000;
  int covered = 0;
  double coverage = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> samples(30);
    for (double& sample : samples) sample = exponential(random);
    std::sort(samples.begin(), samples.end());
    const MedianInterval interval = median_interval(samples, 0.95);
    coverage = interval.coverage;
    covered += interval.low <= median && median <= interval.high ? 1 : 0;
  }
  // n = 30: [x(10), x(21)], coverage 0.9572; 4000 trials give a standard error of 0.0032.
  EXPECT_NEAR(coverage, 0.9572, 1e-3);
  EXPECT_NEAR(static_cast<double>(covered) / trials, coverage, 0.015);
}

TimeStats stats_with_interval(double p50, double low, double high, double coverage) {
  TimeStats stats;
  stats.p50_us = p50;
  stats.p50_ci95 = MedianInterval{low, high, coverage};
  return stats;
}

TEST(ConvergeRule, StopsWhenTheIntervalIsWithinRelOfTheMedian) {
  const ConvergeRule rule{0.05, 10};
  const ConvergeDecision narrow = decide_convergence(stats_with_interval(100, 96, 104, 0.96), 40, 0.5, rule);
  EXPECT_TRUE(narrow.stop);
  EXPECT_TRUE(narrow.converged);
  // Half-width 6 % of the median: keep timing, twice the calls so far.
  const ConvergeDecision wide = decide_convergence(stats_with_interval(100, 94, 106, 0.96), 40, 0.5, rule);
  EXPECT_FALSE(wide.stop);
  EXPECT_FALSE(wide.converged);
  EXPECT_EQ(wide.next_calls, 40);
  // A zero-width interval of 5 samples has only 93.75 % coverage: not a 95 % interval yet.
  const ConvergeDecision few = decide_convergence(stats_with_interval(100, 100, 100, 0.9375), 5, 0.001, rule);
  EXPECT_FALSE(few.stop);
  EXPECT_EQ(few.next_calls, 5);
}

TEST(ConvergeRule, GivesUpWhenTheTimeIsSpentAndFitsBatchesToTheTimeLeft) {
  const ConvergeRule rule{0.01, 2};
  const TimeStats wide = stats_with_interval(100, 50, 150, 0.96);
  const ConvergeDecision spent = decide_convergence(wide, 1000, 2.0, rule);
  EXPECT_TRUE(spent.stop);
  EXPECT_FALSE(spent.converged);
  // 1000 calls took 1.5 s: 0.5 s left holds 333 more, not 1000.
  EXPECT_EQ(decide_convergence(wide, 1000, 1.5, rule).next_calls, 333);
  // Not even one more call fits.
  EXPECT_TRUE(decide_convergence(wide, 10, 1.99, rule).stop);
  // The call cap ends it too, and a batch never passes the cap.
  EXPECT_TRUE(decide_convergence(wide, max_converge_calls, 0.1, ConvergeRule{0.01, 1000}).stop);
  EXPECT_EQ(decide_convergence(wide, max_converge_calls - 7, 0.1, ConvergeRule{0.01, 1000}).next_calls, 7);
}

TEST(ConvergeRule, ParsesAndRefusesValues) {
  const ConvergeRule both = parse_converge("0.02,3.5");
  EXPECT_DOUBLE_EQ(both.rel, 0.02);
  EXPECT_DOUBLE_EQ(both.max_seconds, 3.5);
  EXPECT_DOUBLE_EQ(parse_converge("0.05").max_seconds, default_converge_max_seconds);
  EXPECT_EQ(describe(both), "0.02,3.5");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0", "0 is outside (0, 1)"},         {"1", "1 is outside (0, 1)"},
      {"nan", "'nan' is not a finite"},     {"0.05,0", "MAX_SECONDS"},
      {"0.05,inf", "'inf' is not a finite"}, {"0.05,1,2", "more than two parts"},
      {"", "REL"},                          {"0.05,1e6", "outside (0, 86400] s"}};
  for (const auto& [text, message] : bad) {
    try {
      parse_converge(text);
      ADD_FAILURE() << "accepted --converge '" << text << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(message)) << text;
      EXPECT_THAT(error.what(), HasSubstr("--converge REL[,MAX_SECONDS]")) << text;
    }
  }
}

TEST(BenchRankSkew, SummarisesMinMedianMax) {
  const SkewStats skew = summarise_skew({3e-6, 1e-6, 2e-6, 10e-6});
  EXPECT_DOUBLE_EQ(skew.min_us, 1.0);
  EXPECT_DOUBLE_EQ(skew.p50_us, 2.0);
  EXPECT_DOUBLE_EQ(skew.max_us, 10.0);
}

TEST(BenchClockOffset, TakesTheFastestRoundTrip) {
  // The peer's clock is 5 s ahead; the slow trip's reply was delayed on the way back.
  const std::vector<RoundTrip> trips = {{100.0, 105.0004, 100.0100}, {200.0, 205.00001, 200.00002}};
  EXPECT_NEAR(offset_from_round_trips(trips), 5.0, 1e-9);
  EXPECT_EQ(offset_from_round_trips({}), 0.0);
}

}  // namespace
}  // namespace ringlab::bench
