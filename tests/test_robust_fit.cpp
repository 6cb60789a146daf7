// The calibration's robust fit (calibration/robust_fit.hpp, issue 27): least squares in relative
// error on the samples a Theil–Sen line accepts, Theil–Sen where that least squares has no
// positive slope; unchanged results where no sample is an outlier; errors that name the samples.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "collectives/backends/threads_communicator.hpp"
#include "calibration/calibrated_topology.hpp"
#include "calibration/calibration_record.hpp"
#include "calibration/linear_fit.hpp"
#include "calibration/measurements.hpp"
#include "calibration/per_cpu_topology.hpp"
#include "calibration/robust_fit.hpp"

namespace ringlab {
namespace {

using calibration::FitError;
using calibration::LinearFit;
using calibration::Sample;
using calibration::SlopeMethod;

std::vector<Sample> exact_line(double intercept, double slope, const std::vector<double>& sizes) {
  std::vector<Sample> samples;
  for (double x : sizes) samples.push_back({x, intercept + slope * x});
  return samples;
}

constexpr double mib = 1 << 20;
// The reduce kernel's out-of-cache operands (gamma's fit), and a ping-pong sweep like
// cli.calibrate_threads' (8 B .. 4 MiB, x4; beta from the four sizes >= 64 KiB).
const std::vector<double> reduce_sizes = {16 * mib, 32 * mib, 64 * mib, 128 * mib, 256 * mib};
const std::vector<double> ping_pong_sizes = {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152, 4194304};

// Multiplicative noise within +-amplitude, the same on every platform (raw mt19937 draws).
std::vector<Sample> with_noise(std::vector<Sample> samples, double amplitude, unsigned seed) {
  std::mt19937 draws(seed);
  for (Sample& sample : samples)
    sample.t *= 1 + amplitude * (2.0 * static_cast<double>(draws()) / static_cast<double>(std::mt19937::max()) - 1);
  return samples;
}

// Three pairs' ping-pong pooled, as fit_parameters pools them.
std::vector<Sample> three_pairs(const std::vector<Sample>& one_pair) {
  std::vector<Sample> pooled;
  for (int pair = 0; pair < 3; ++pair) pooled.insert(pooled.end(), one_pair.begin(), one_pair.end());
  return pooled;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

double relative_error(double value, double truth) { return std::abs(value / truth - 1); }

TEST(RobustFit, TheilSenSlopeIsTheMedianOfPairwiseSlopes) {
  // Slopes of the pairs of different x: 1, 2, 4.5, 3, 8; the median is 3.
  EXPECT_DOUBLE_EQ(*calibration::theil_sen_slope(std::vector<Sample>{{0, 0}, {1, 1}, {2, 4}, {2, 9}}), 3);
  // An even count, (0,0) (1,1) (2,4) (3,12): slopes 1, 2, 4, 3, 5.5, 8; the middle two are 3 and 4.
  EXPECT_DOUBLE_EQ(*calibration::theil_sen_slope(std::vector<Sample>{{0, 0}, {1, 1}, {2, 4}, {3, 12}}), 3.5);
  EXPECT_FALSE(calibration::theil_sen_slope(std::vector<Sample>{{8, 1}, {8, 2}}).has_value());
}

TEST(RobustFit, SlowOutliersBeyondTwiceTheLineAndTheTypicalMisfit) {
  // Against the exact line: x1.9 stays (below the factor 2), x2.5 goes; a fast sample never goes.
  std::vector<Sample> samples = exact_line(0, 1, {1, 2, 3, 4, 5, 6, 7, 8});
  samples[1].t *= 1.9;
  samples[4].t *= 2.5;
  samples[6].t /= 10;
  EXPECT_EQ(calibration::slow_outliers(samples, 0, 1), std::vector<std::size_t>{4});
  // Where the samples scatter by +-40 % around the line, x2.5 is within 4 typical misfits.
  std::vector<Sample> scattered = exact_line(0, 1, {1, 2, 3, 4, 5, 6, 7, 8});
  for (std::size_t i = 0; i < scattered.size(); ++i) scattered[i].t *= i % 2 == 0 ? 1.4 : 1 / 1.4;
  scattered[4].t = 2.5 * 5;
  EXPECT_TRUE(calibration::slow_outliers(scattered, 0, 1).empty());
  // Every sample x10: the line is wrong, not the samples; none goes.
  EXPECT_TRUE(calibration::slow_outliers(exact_line(0, 10, {1, 2, 3, 4}), 0, 1).empty());
}

// Where no sample is an outlier the robust fits are the least squares of before, bit for bit:
// exact lines, +-20 % noise, and the shape of a real machine (a cache step of x1.4).
TEST(RobustFit, CleanDataFitsExactlyAsLeastSquares) {
  std::vector<std::vector<Sample>> cases = {exact_line(1e-5, 7e-11, reduce_sizes), exact_line(2e-6, 1e-10, ping_pong_sizes)};
  for (unsigned seed = 1; seed <= 20; ++seed) {
    cases.push_back(with_noise(exact_line(1e-5, 7e-11, reduce_sizes), 0.2, seed));
    cases.push_back(with_noise(exact_line(2e-6, 1e-10, ping_pong_sizes), 0.2, seed));
  }
  std::vector<Sample> step = exact_line(1e-6, 1e-10, ping_pong_sizes);
  for (Sample& sample : step)
    if (sample.x >= 2097152) sample.t *= 1.4;
  cases.push_back(step);
  for (const std::vector<Sample>& samples : cases) {
    const LinearFit plain = calibration::fit_relative(samples);
    const LinearFit robust = calibration::fit_relative_robust(samples);
    EXPECT_EQ(robust.slope, plain.slope);
    EXPECT_EQ(robust.intercept, plain.intercept);
    EXPECT_EQ(robust.relative_residuals, plain.relative_residuals);
    EXPECT_TRUE(robust.dropped.empty());
    EXPECT_EQ(robust.slope_method, SlopeMethod::least_squares);
    const calibration::RobustSlope held = calibration::fit_slope_robust(samples, samples.front().t);
    EXPECT_EQ(held.slope, calibration::fit_slope_relative(samples, samples.front().t));
    EXPECT_TRUE(held.dropped.empty());
  }
}

// gamma's fit (intercept free) over the five out-of-cache operands: one slow sample of x3 .. x100
// pulls least squares 1-19 % off; the robust fit drops it and is exact. (Two of five is
// beyond what any line fit can tell from a steeper line: Theil-Sen gives way at about 29 %.)
TEST(RobustFit, FreeFitDropsSlowOutliersWhereLeastSquaresIsPulled) {
  const double gamma = 7e-11;
  struct Case {
    std::size_t outlier;
    double factor;
    double plain_error;  // least squares is at least this far off
  };
  for (const Case& c : {Case{0, 3, 0.15}, Case{0, 10, 0.1}, Case{0, 100, 0.01}, Case{1, 3, 0.03}, Case{4, 3, 0.05}}) {
    std::vector<Sample> samples = exact_line(1e-5, gamma, reduce_sizes);
    samples[c.outlier].t *= c.factor;
    double plain_error = 1;  // no positive slope at all
    try {
      plain_error = relative_error(calibration::fit_relative(samples).slope, gamma);
    } catch (const FitError&) {
    }
    EXPECT_GT(plain_error, c.plain_error) << "least squares is not pulled by the outlier at " << c.outlier;
    const LinearFit robust = calibration::fit_relative_robust(samples);
    EXPECT_LT(relative_error(robust.slope, gamma), 1e-9) << "outlier at " << c.outlier;
    ASSERT_EQ(robust.dropped.size(), 1u) << "outlier at " << c.outlier;
    EXPECT_EQ(robust.dropped[0].index, c.outlier);
    EXPECT_NEAR(robust.dropped[0].sample.t / robust.dropped[0].line_t, c.factor, 0.01 * c.factor);
    EXPECT_EQ(robust.relative_residuals.size(), samples.size());  // dropped ones still reported
  }
}

// The pooled ping-pong of three pairs, +-10 % noise, and one to three samples x3, x10, x100 slow:
// the wild samples are named and left out, so beta is what least squares gives without them (and
// within 5 % of the truth, which the noise alone moves by up to 4 %).
TEST(RobustFit, PooledPingPongKeepsBetaWithNoiseAndOutliers) {
  const double alpha = 2e-6, beta = 2e-10;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    for (std::size_t wild = 1; wild <= 3; ++wild) {
      const std::vector<Sample> clean = with_noise(three_pairs(exact_line(alpha, beta, ping_pong_sizes)), 0.1, seed);
      std::vector<Sample> samples = clean;
      const std::size_t largest[] = {10, 21, 29};  // 4 MiB of pair 0 and 1, 512 KiB of pair 2
      const double factor[] = {3, 10, 100};
      for (std::size_t k = 0; k < wild; ++k) samples[largest[k]].t *= factor[k];
      const LinearFit fit = calibration::fit_transfer(samples, {});
      std::vector<Sample> without;
      for (std::size_t i = 0; i < clean.size(); ++i)
        if (i != largest[0] && (wild < 2 || i != largest[1]) && (wild < 3 || i != largest[2])) without.push_back(clean[i]);
      const LinearFit reference = calibration::fit_transfer(without, {});
      EXPECT_LT(relative_error(fit.slope, reference.slope), 1e-9) << "seed " << seed << ", " << wild << " outlier(s)";
      EXPECT_LT(relative_error(fit.slope, beta), 0.05) << "seed " << seed << ", " << wild << " outlier(s)";
      EXPECT_EQ(fit.dropped.size(), wild) << "seed " << seed;
      for (std::size_t k = 0; k < fit.dropped.size() && k < wild; ++k) EXPECT_EQ(fit.dropped[k].index, largest[k]);
    }
  }
}

// A loaded machine: every small size waited for a CPU (alpha x50), so least squares through that
// alpha has no positive slope ("fitted slope <= 0" before); Theil–Sen's slope of the large sizes
// does not depend on alpha and recovers beta.
TEST(RobustFit, InflatedAlphaFallsBackToTheilSen) {
  const double alpha = 20e-6, beta = 2e-10;
  std::vector<Sample> samples = exact_line(alpha, beta, ping_pong_sizes);
  for (Sample& sample : samples)
    if (sample.x <= 4096) sample.t = 50 * alpha;
  std::vector<Sample> large(samples.end() - 4, samples.end());
  EXPECT_THROW(calibration::fit_slope_relative(large, 50 * alpha), FitError);
  const LinearFit fit = calibration::fit_transfer(samples, {});
  EXPECT_EQ(fit.slope_method, SlopeMethod::theil_sen);
  EXPECT_LT(relative_error(fit.slope, beta), 1e-9);
  EXPECT_GT(fit.intercept, 40 * alpha);  // what was measured: the small sizes' time
}

TEST(RobustFit, NoPositiveSlopeNamesEverySample) {
  const std::vector<Sample> shrinking = {{131072, 900e-6}, {524288, 700e-6}, {2097152, 650e-6}, {4194304, 600e-6}};
  try {
    calibration::fit_relative_robust(shrinking);
    FAIL() << "no FitError";
  } catch (const FitError& error) {
    EXPECT_PRED2(contains, error.what(), std::string("the times do not grow with size"));
    EXPECT_PRED2(contains, error.what(), std::string("Theil-Sen slope -"));
    EXPECT_PRED2(contains, error.what(), std::string("131072 B 900.000 us, 524288 B 700.000 us"));
  }
  EXPECT_THROW(calibration::fit_slope_robust(shrinking, 1e-3), FitError);  // through 1 ms: no positive slope
  EXPECT_THROW(calibration::fit_relative_robust(std::vector<Sample>{{8, 1e-6}, {16, -1}}), std::invalid_argument);
}

// The committed calibrations refit as before the robust fit (values the code of 2026-12-05,
// commit fb104a2, wrote with --from-report): no sample of theirs is an outlier.
TEST(RobustFit, CommittedCalibrationsRefitUnchanged) {
  struct Golden {
    const char* path;
    double alpha, beta, gamma, memory_bandwidth;
    double same_alpha = 0, same_beta = 0, cross_alpha = 0, cross_beta = 0;  // per-CPU records
  };
  const Golden goldens[] = {
      {"results/calibration/2026-12-03-n2.json", 4.3027869766241957e-07, 2.766279219755419e-11,
       8.479043592435576e-11, 36149640746.98198},
      {"results/calibration/2026-12-03-n4.json", 3.414415035813688e-07, 3.1707003270556356e-11,
       8.237882206652907e-11, 31538773673.026882},
      {"results/calibration/2026-12-05-per-cpu-offline/bound-rounds/2026-12-05-n4-r1-before.json",
       1.2667575876009354e-06, 1.229875968676911e-10, 1.1843122091397818e-10, 8130901208.483573,
       2.7537252738586865e-06, 8.808379797901472e-11, 1.0313390409705413e-06, 1.7690496967057663e-10},
      {"results/calibration/2026-12-05-waiting-cost/2026-12-05-n8-r1-after.json", 1.3556443640856966e-06,
       1.2178835139512354e-10, 1.3386237954182403e-10, 8210965897.351333, 2.828544943133356e-06,
       9.339888177065408e-11, 9.440379183774063e-07, 1.7548501267651325e-10},
  };
  const auto expect_same = [](double value, double golden, const char* what, const char* path) {
    EXPECT_LE(std::abs(value - golden), 1e-9 * std::abs(golden)) << what << " of " << path;
  };
  for (const Golden& golden : goldens) {
    const calibration::RecordedCalibration recorded =
        calibration::read_calibration_file(std::string(RINGLAB_SOURCE_DIR) + "/" + golden.path);
    const calibration::FittedParameters fit = calibration::fit_parameters(recorded.measurements, recorded.cores);
    expect_same(fit.alpha_seconds, golden.alpha, "alpha", golden.path);
    expect_same(fit.beta_seconds_per_byte, golden.beta, "beta", golden.path);
    expect_same(fit.gamma_seconds_per_byte, golden.gamma, "gamma", golden.path);
    expect_same(fit.memory_bandwidth, golden.memory_bandwidth, "memory bandwidth", golden.path);
    EXPECT_TRUE(fit.transfer_fit.dropped.empty()) << golden.path;
    EXPECT_TRUE(fit.reduce_fit.dropped.empty()) << golden.path;
    for (const LinearFit& pair_fit : fit.pair_fits) EXPECT_TRUE(pair_fit.dropped.empty()) << golden.path;
    if (golden.same_beta == 0) continue;
    const auto cpus = calibration::cpu_of_each_rank(recorded.rank_cpus);
    ASSERT_TRUE(cpus.has_value()) << golden.path;
    const auto classes = calibration::fit_cpu_classes(recorded.measurements, *cpus, {});
    ASSERT_TRUE(classes.has_value()) << golden.path;
    expect_same(classes->same_cpu.intercept, golden.same_alpha, "same-CPU alpha", golden.path);
    expect_same(classes->same_cpu.slope, golden.same_beta, "same-CPU beta", golden.path);
    expect_same(classes->cross_cpu.intercept, golden.cross_alpha, "cross-CPU alpha", golden.path);
    expect_same(classes->cross_cpu.slope, golden.cross_beta, "cross-CPU beta", golden.path);
  }
}

calibration::Measurements measurements_of(const std::vector<Sample>& pair_samples, double gamma) {
  calibration::Measurements measurements;
  for (const auto& [first, second] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
    calibration::PairMeasurement pair{first, second, {}};
    for (const Sample& sample : pair_samples)
      pair.samples.push_back({static_cast<std::int64_t>(sample.x), 10, sample.t, sample.t});
    measurements.pairs.push_back(pair);
  }
  measurements.concurrent = {2, {{1 << 20, 5, 1e-4, 2e10}}};
  for (const Sample& sample : exact_line(1e-5, gamma, reduce_sizes))
    measurements.reduce.push_back({static_cast<std::int64_t>(sample.x), 5, sample.t});
  return measurements;
}

// Which measurement did not fit is named: the pair, the class of pairs, the reduce kernel.
TEST(RobustFit, FitErrorsNameTheMeasurement) {
  std::vector<Sample> shrinking = exact_line(1e-6, 1e-10, ping_pong_sizes);
  for (Sample& sample : shrinking) {  // small sizes slow, large ones faster with size
    if (sample.x <= 4096) sample.t = 2e-3;
    if (sample.x >= 65536) sample.t = 1e-3 - 1e-11 * sample.x;
  }
  calibration::Measurements bad_pair = measurements_of(exact_line(1e-6, 1e-10, ping_pong_sizes), 7e-11);
  for (std::size_t i = 0; i < shrinking.size(); ++i) bad_pair.pairs[1].samples[i].one_way_median_seconds = shrinking[i].t;
  try {
    calibration::fit_parameters(bad_pair, 2);
    FAIL() << "no FitError";
  } catch (const FitError& error) {
    EXPECT_PRED2(contains, error.what(), std::string("the ping-pong of ranks 0 and 2: beta from the sizes >= 65536 B (--beta-min-bytes)"));
    EXPECT_PRED2(contains, error.what(), std::string("4194304 B 958.057 us"));
  }
  try {
    calibration::fit_cpu_classes(bad_pair, {0, 1, 0}, {});
    FAIL() << "no FitError";
  } catch (const FitError& error) {
    EXPECT_PRED2(contains, error.what(), std::string("the ping-pong of the same-CPU pairs (0, 2) pooled: beta from"));
  }
  calibration::Measurements bad_reduce = measurements_of(exact_line(1e-6, 1e-10, ping_pong_sizes), 7e-11);
  for (calibration::ReduceSample& sample : bad_reduce.reduce)
    sample.median_seconds = 0.05 - 1e-10 * static_cast<double>(sample.bytes);
  try {
    calibration::fit_parameters(bad_reduce, 2);
    FAIL() << "no FitError";
  } catch (const FitError& error) {
    EXPECT_PRED2(contains, error.what(), std::string("gamma of the reduce kernel (float32 sum on rank 0, operands of 16777216 .. 268435456 B)"));
  }
}

// The record says what was dropped, and from which pair.
TEST(RobustFit, RecordNamesTheDroppedSamples) {
  calibration::Measurements measurements = measurements_of(exact_line(2e-6, 2e-10, ping_pong_sizes), 7e-11);
  measurements.pairs[2].samples[9].one_way_median_seconds *= 20;  // ranks 1 and 2, 2 MiB
  const calibration::FittedParameters fit = calibration::fit_parameters(measurements, 2);
  const nlohmann::json record = calibration::calibration_record(measurements, fit, nlohmann::json::object());
  const nlohmann::json& pooled = record.at("ping_pong").at("fit");
  ASSERT_EQ(pooled.at("outliers_dropped").size(), 1u);
  EXPECT_EQ(pooled.at("outliers_dropped")[0].at("ranks"), nlohmann::json({1, 2}));
  EXPECT_EQ(pooled.at("outliers_dropped")[0].at("bytes"), 2097152);
  EXPECT_NEAR(pooled.at("outliers_dropped")[0].at("times_the_line").get<double>(), 20, 0.01);
  EXPECT_EQ(pooled.at("slope_method"), "relative least squares");
  EXPECT_EQ(record.at("ping_pong").at("pairs")[2].at("fit").at("outliers_dropped").size(), 1u);
  EXPECT_TRUE(record.at("ping_pong").at("pairs")[0].at("fit").at("outliers_dropped").empty());
  EXPECT_NEAR(fit.beta_seconds_per_byte, 2e-10, 1e-9 * 2e-10);
}

// However short --min-time, every size gets at least 25 timed round trips: the median of 5 was a
// scheduler slice whenever 3 of them waited one (issue 27).
TEST(RobustMeasure, AtLeast25RoundTripsPerSize) {
  const calibration::MeasureOptions options{{8, 65536}, 1e-9, 60};
  std::vector<calibration::PairMeasurement> pairs;
  run_threads(2, [&](Communicator& comm) {
    auto measured = calibration::measure_ping_pong(comm, options);
    if (comm.rank() == 0) pairs = std::move(measured);
  });
  ASSERT_EQ(pairs.size(), 1u);
  for (const calibration::PingPongSample& sample : pairs[0].samples) EXPECT_EQ(sample.iterations, 25) << sample.bytes;
}

}  // namespace
}  // namespace ringlab
