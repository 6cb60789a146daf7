// ringlab calibrate's fits, calibrated topology and measurements (threads backend), and ringlab
// compare's report reading and error statistics.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "calibration/calibrated_topology.hpp"
#include "calibration/calibration_record.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/compare.hpp"
#include "calibration/linear_fit.hpp"
#include "calibration/measurements.hpp"
#include "calibration/per_cpu_topology.hpp"
#include "topology/presets.hpp"
#include "topology/routing.hpp"
#include "topology/topology_io.hpp"

namespace ringlab {
namespace {

using calibration::Sample;

std::vector<Sample> line(double alpha, double beta, const std::vector<double>& sizes) {
  std::vector<Sample> samples;
  for (double x : sizes) samples.push_back({x, alpha + beta * x});
  return samples;
}

const std::vector<double> sweep = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216, 67108864};

double calibration_footprint(double message_bytes) { return ping_pong_footprint_bytes(message_bytes); }

TEST(CalibrationFit, RecoversAnExactLine) {
  const calibration::LinearFit fit = calibration::fit_relative(line(2e-6, 1e-10, sweep));
  EXPECT_NEAR(fit.intercept, 2e-6, 1e-12);
  EXPECT_NEAR(fit.slope, 1e-10, 1e-16);
  EXPECT_LT(fit.max_abs_residual, 1e-9);
  EXPECT_FALSE(fit.intercept_clamped);
}

TEST(CalibrationFit, RelativeWeightingKeepsTheLatency) {
  // The largest size 20 % slow: ordinary least squares would move the intercept by microseconds;
  // in relative error the small sizes still fix it.
  std::vector<Sample> samples = line(1e-6, 1e-10, sweep);
  samples.back().t *= 1.2;
  const calibration::LinearFit fit = calibration::fit_relative(samples);
  EXPECT_NEAR(fit.intercept, 1e-6, 0.05e-6);
}

TEST(CalibrationFit, NegativeInterceptIsClampedAndBadInputRefused) {
  const calibration::LinearFit fit = calibration::fit_relative(std::vector<Sample>{{1000, 0.5e-6}, {2000, 2e-6}});
  EXPECT_TRUE(fit.intercept_clamped);
  EXPECT_EQ(fit.intercept, 0);
  EXPECT_THROW(calibration::fit_relative(std::vector<Sample>{{8, 1e-6}}), std::invalid_argument);
  EXPECT_THROW(calibration::fit_relative(std::vector<Sample>{{8, 1e-6}, {8, 2e-6}}), std::invalid_argument);
  EXPECT_THROW(calibration::fit_relative(std::vector<Sample>{{8, 2e-6}, {4096, 1e-6}}), std::invalid_argument);
  EXPECT_THROW(calibration::fit_relative(std::vector<Sample>{{8, 0}, {4096, 1e-6}}), std::invalid_argument);
}

TEST(CalibrationFit, AlphaFromSmallSizesBetaFromLargeOnes) {
  // Cache-resident mid sizes twice as fast per byte as the large ones: alpha and beta still come
  // out of the ends they belong to.
  std::vector<Sample> samples = line(1e-6, 4e-10, sweep);
  for (Sample& sample : samples)
    if (sample.x > 4096 && sample.x < 65536) sample.t = 1e-6 + 2e-10 * sample.x;
  const calibration::LinearFit fit = calibration::fit_transfer(samples, {});
  EXPECT_NEAR(fit.intercept, 1e-6, 1e-9);
  EXPECT_NEAR(fit.slope, 4e-10, 1e-13);
  EXPECT_GT(fit.max_abs_residual, 0.3);  // the mid sizes are reported, not hidden
}

calibration::Measurements synthetic_measurements(double alpha, double beta, double aggregate, double gamma) {
  calibration::Measurements measurements;
  calibration::PairMeasurement pair{0, 1, {}};
  for (const Sample& sample : line(alpha, beta, sweep))
    pair.samples.push_back({static_cast<std::int64_t>(sample.x), 10, sample.t, sample.t});
  measurements.pairs = {pair};
  measurements.concurrent = {2, {{1 << 20, 5, 2.0 * (1 << 20) / aggregate, aggregate},
                                 {1 << 24, 5, 2.0 * (1 << 24) / aggregate, aggregate}}};
  for (std::int64_t bytes : {16 << 20, 32 << 20, 64 << 20})
    measurements.reduce.push_back({bytes, 5, 1e-5 + gamma * static_cast<double>(bytes)});
  return measurements;
}

TEST(CalibrationTopology, RoutesCarryTheFittedParameters) {
  const auto fit = calibration::fit_parameters(synthetic_measurements(1e-6, 2e-10, 30e9, 1e-10), 2);
  EXPECT_NEAR(fit.alpha_seconds, 1e-6, 1e-10);
  EXPECT_NEAR(fit.beta_seconds_per_byte, 2e-10, 1e-15);
  EXPECT_NEAR(fit.gamma_seconds_per_byte, 1e-10, 1e-15);
  EXPECT_DOUBLE_EQ(fit.memory_bandwidth, 30e9);
  EXPECT_FALSE(fit.memory_saturated);  // 30 GB/s > 0.9 x 2 x 5 GB/s
  const Topology topology = calibration::calibrated_topology(fit, 2);
  Router router(topology);
  const Route route = router.route(0, 1);
  EXPECT_NEAR(route.latency, 1e-6, 1e-11);           // two links of alpha / 2
  EXPECT_NEAR(route.bottleneck_bandwidth, 5e9, 1e3);  // 1 / beta
  EXPECT_NEAR(*topology.gamma_seconds_per_byte(), 1e-10, 1e-15);
  // 8 processes on 2 cores: each runs a quarter of the time, reductions included.
  const Topology shared = calibration::calibrated_topology(fit, 8);
  EXPECT_NEAR(*shared.gamma_seconds_per_byte(), 4e-10, 1e-15);
  EXPECT_NEAR(Router(shared).route(0, 7).latency, 4e-6, 1e-10);
}

TEST(CalibrationTopology, SharedCapacityNeverBelowOneTransfer) {
  const auto fit = calibration::fit_parameters(synthetic_measurements(1e-6, 2e-10, 3e9, 1e-10), 2);
  EXPECT_TRUE(fit.memory_saturated);
  EXPECT_NEAR(fit.memory_bandwidth, 5e9, 1e3);
}

TEST(CalibrationTopology, JsonKeepsGammaAndAcceptsTheRecord) {
  const auto measurements = synthetic_measurements(1e-6, 2e-10, 30e9, 1e-10);
  const auto fit = calibration::fit_parameters(measurements, 2);
  nlohmann::json document = to_json(calibration::calibrated_topology(fit, 4));
  document["calibration"] = calibration::calibration_record(measurements, fit, {{"tool", "test"}});
  const Topology back = topology_from_json(document);
  EXPECT_EQ(back.num_endpoints(), 4);
  EXPECT_DOUBLE_EQ(*back.gamma_seconds_per_byte(), 2e-10);
  std::ostringstream laid_out;  // the one-node-per-line form of topology show --json keeps it too
  write_topology_json(laid_out, back);
  EXPECT_DOUBLE_EQ(*topology_from_json(nlohmann::json::parse(laid_out.str())).gamma_seconds_per_byte(), 2e-10);
  EXPECT_EQ(document["calibration"]["ping_pong"]["pairs"][0]["samples"].size(), sweep.size());
  // The simulator prices with the topology's gamma unless given one.
  EXPECT_DOUBLE_EQ(simulator::choose_gamma(back, std::nullopt), 2e-10);
  EXPECT_DOUBLE_EQ(simulator::choose_gamma(back, 3e-10), 3e-10);
  EXPECT_DOUBLE_EQ(simulator::choose_gamma(Topology("plain"), std::nullopt), simulator::default_gamma_seconds_per_byte);
  document["gamma_seconds_per_byte"] = -1;
  EXPECT_THROW(topology_from_json(document), std::invalid_argument);
  document["gamma_seconds_per_byte"] = 1e-10;
  document["calibration"] = 5;
  EXPECT_THROW(topology_from_json(document), std::invalid_argument);
}

// Four ranks bound two to a CPU (mpiexec -bind-to core on 2 CPUs: 0 and 2 on CPU 0, 1 and 3 on
// CPU 1): same-CPU pairs 3 us + 1e-10 s/B, cross-CPU pairs 1 us + 2e-10 s/B.
calibration::Measurements bound_measurements() {
  calibration::Measurements measurements = synthetic_measurements(1e-6, 2e-10, 30e9, 1e-10);
  measurements.pairs.clear();
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) {
      const bool same_cpu = a % 2 == b % 2;
      calibration::PairMeasurement pair{a, b, {}};
      for (const Sample& sample : line(same_cpu ? 3e-6 : 1e-6, same_cpu ? 1e-10 : 2e-10, sweep))
        pair.samples.push_back({static_cast<std::int64_t>(sample.x), 10, sample.t, sample.t});
      measurements.pairs.push_back(pair);
    }
  return measurements;
}

TEST(CalibrationPerCpu, OneCpuPerRankOrNone) {
  EXPECT_EQ(calibration::cpu_of_each_rank({"0", "1", "0", "1"}), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(calibration::cpu_of_each_rank({"12"}), (std::vector<int>{12}));
  EXPECT_EQ(calibration::cpu_of_each_rank({"0", "0-1"}), std::nullopt);
  EXPECT_EQ(calibration::cpu_of_each_rank({"0,1"}), std::nullopt);
  EXPECT_EQ(calibration::cpu_of_each_rank({"0", ""}), std::nullopt);
  EXPECT_EQ(calibration::cpu_of_each_rank({"-1"}), std::nullopt);
}

TEST(CalibrationPerCpu, PairsSplitByCpuAndFittedApart) {
  const calibration::Measurements measurements = bound_measurements();
  const auto classes = calibration::fit_cpu_classes(measurements, {0, 1, 0, 1}, {});
  ASSERT_TRUE(classes);
  EXPECT_EQ(classes->same_cpu_pairs, 2);
  EXPECT_EQ(classes->cross_cpu_pairs, 4);
  EXPECT_NEAR(classes->same_cpu.intercept, 3e-6, 1e-10);
  EXPECT_NEAR(classes->same_cpu.slope, 1e-10, 1e-15);
  EXPECT_NEAR(classes->cross_cpu.intercept, 1e-6, 1e-10);
  EXPECT_NEAR(classes->cross_cpu.slope, 2e-10, 1e-15);
  // One class alone: every rank on a CPU of its own, or all on one.
  EXPECT_FALSE(calibration::fit_cpu_classes(measurements, {0, 1, 2, 3}, {}));
  EXPECT_FALSE(calibration::fit_cpu_classes(measurements, {5, 5, 5, 5}, {}));
  EXPECT_THROW(calibration::fit_cpu_classes(measurements, {0, 1}, {}), std::invalid_argument);
}

TEST(CalibrationPerCpu, SameCpuPairsRouteThroughTheirCpuWithTheirOwnBandwidth) {
  const calibration::Measurements measurements = bound_measurements();
  const std::vector<int> cpus = {0, 1, 0, 1};
  const auto fit = calibration::fit_parameters(measurements, 2);
  const auto classes = calibration::fit_cpu_classes(measurements, cpus, {});
  ASSERT_TRUE(classes);
  const Topology topology = calibration::per_cpu_topology(fit, *classes, cpus);
  EXPECT_EQ(topology.num_endpoints(), 4);
  EXPECT_EQ(topology.num_switches(), 3);  // the memory bus and two CPUs
  // 4 processes on 2 cores: bandwidth x 1/2, latency x 2, gamma x 2, as host-shm scales them.
  const double footprint = 4.0 * 67108864;
  const double factor = topology.footprint_curves().link_bandwidth_factor.at(footprint);
  EXPECT_NEAR(factor, 1.0, 1e-9);  // each class follows its own line exactly: no footprint effect
  const Topology constant = topology.at_footprint(footprint);
  Router router(constant);
  const Route same = router.route(0, 2);
  EXPECT_NEAR(same.bottleneck_bandwidth, factor * 0.5 / 1e-10, 1e3);
  EXPECT_NEAR(same.latency, 2 * 0.99e-6, 1e-11);  // capped under the cross-CPU latency (step 4)
  const Route cross = router.route(0, 1);
  EXPECT_NEAR(cross.bottleneck_bandwidth, factor * 0.5 / 2e-10, 1e3);
  EXPECT_NEAR(cross.latency, 2e-6, 1e-11);
  EXPECT_NEAR(*topology.gamma_seconds_per_byte(), 2e-10, 1e-15);
  // Every route's links: same-CPU pairs through their CPU's switch, the others through the bus.
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      if (a == b) continue;
      const Route route = router.route(a, b);
      ASSERT_EQ(route.hops(), 2);
      const NodeId middle = constant.directed_link(route.links[0]).to;
      EXPECT_EQ(constant.node(middle).name, a % 2 == b % 2 ? fmt::format("cpu{}", a % 2) : "memory-bus") << a << b;
    }
  // Both classes follow one footprint factor: their ratio is kept at every footprint.
  for (double other : {1e6, 1e7, 1e8}) {
    const Topology scaled = topology.at_footprint(other);
    Router at(scaled);
    EXPECT_NEAR(at.route(0, 2).bottleneck_bandwidth / at.route(0, 1).bottleneck_bandwidth, 2.0, 1e-9) << other;
  }
  // The document reads back with its curves.
  EXPECT_EQ(topology_from_json(to_json(topology)).footprint_curves(), topology.footprint_curves());
}

// The waiting-mates ping-pong of ranks 0 and 1 at three sizes, `ratio` times as long with the
// other ranks polling as with them sleeping.
calibration::WaitingMatesMeasurement waiting_mates(std::vector<double> ratios) {
  calibration::WaitingMatesMeasurement measurement;
  std::int64_t bytes = 1 << 17;
  for (double ratio : ratios) {
    measurement.samples.push_back({bytes, 1e-4, 1e-4 * ratio});
    bytes *= 4;
  }
  return measurement;
}

TEST(CalibrationPerCpu, WaitingRankCostFromThePairsSlowdown) {
  // 4 ranks on 2 CPUs: one rank waits beside each of the pair's: (1.3 - 1) x 1 / 1.
  auto cost = calibration::waiting_rank_cost(waiting_mates({1.2, 1.3, 1.9}), {0, 1, 0, 1});
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->median_ratio, 1.3, 1e-12);
  EXPECT_NEAR(cost->cost, 0.3, 1e-12);
  EXPECT_DOUBLE_EQ(cost->waiting_per_busy, 1);
  EXPECT_FALSE(cost->clamped);
  // 8 ranks on 2 CPUs: three wait beside each: (1.9 - 1) / 3.
  cost = calibration::waiting_rank_cost(waiting_mates({1.9, 1.9, 2.5}), {0, 1, 0, 1, 0, 1, 0, 1});
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->cost, 0.3, 1e-12);
  // The pair on one CPU with two waiting: its two busy ranks share it, (1.5 - 1) x 2 / 2.
  cost = calibration::waiting_rank_cost(waiting_mates({1.5}), {0, 0, 0, 0});
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->cost, 0.5, 1e-12);
  // Faster with them polling (noise), or slower than a full busy rank each: kept within [0, 1].
  cost = calibration::waiting_rank_cost(waiting_mates({0.9, 0.95, 1.1}), {0, 1, 0, 1});
  ASSERT_TRUE(cost);
  EXPECT_EQ(cost->cost, 0);
  EXPECT_TRUE(cost->clamped);
  EXPECT_EQ(calibration::waiting_rank_cost(waiting_mates({3, 3, 3}), {0, 1, 0, 1})->cost, 1);
  // Nothing to learn: no sample (an older record), or no rank waits on the pair's CPUs.
  EXPECT_FALSE(calibration::waiting_rank_cost(waiting_mates({}), {0, 1, 0, 1}));
  EXPECT_FALSE(calibration::waiting_rank_cost(waiting_mates({1.3}), {0, 1, 2, 2}));
  EXPECT_THROW(calibration::waiting_rank_cost(waiting_mates({1.3}), {0}), std::invalid_argument);
}

TEST(CalibrationPerCpu, TopologyCarriesTheCpuSharing) {
  calibration::Measurements measurements = bound_measurements();
  const std::vector<int> cpus = {0, 1, 0, 1};
  const auto fit = calibration::fit_parameters(measurements, 2);
  auto classes = calibration::fit_cpu_classes(measurements, cpus, {});
  ASSERT_TRUE(classes);
  EXPECT_FALSE(classes->waiting);  // not measured: cost 1, the written share always
  EXPECT_EQ(calibration::per_cpu_topology(fit, *classes, cpus).cpu_sharing(), (CpuSharing{cpus, 0.5, 1.0}));
  measurements.waiting_mates = waiting_mates({1.25, 1.25, 1.25});
  classes = calibration::fit_cpu_classes(measurements, cpus, {});
  ASSERT_TRUE(classes && classes->waiting);
  const Topology topology = calibration::per_cpu_topology(fit, *classes, cpus);
  EXPECT_EQ(topology.cpu_sharing(), (CpuSharing{cpus, 0.5, 0.25}));
  EXPECT_EQ(topology_from_json(to_json(topology)).cpu_sharing(), topology.cpu_sharing());
  EXPECT_EQ(topology.at_footprint(1e6).cpu_sharing(), topology.cpu_sharing());
  EXPECT_EQ(calibration::cpu_classes_record(*classes)["waiting_rank_cost"]["cost"], 0.25);
}

// A machine whose one-way bandwidth follows a known footprint curve: the fit finds the curve's
// points again, and the memory bus and gamma curves from the streaming and reduce samples.
TEST(CalibrationFootprint, RecoversAKnownSyntheticCurve) {
  const FootprintCurve bandwidth({{4.0 * 65536, 40e9}, {4.0 * 2097152, 44e9}, {4.0 * 67108864, 16e9}});
  const FootprintCurve reduce_rate({{3.0 * 65536, 30e9}, {3.0 * 67108864, 12e9}});  // bytes reduced per second
  const double alpha = 4e-7;
  calibration::Measurements measurements;
  for (int pair = 0; pair < 3; ++pair) {
    calibration::PairMeasurement measured{0, pair + 1, {}};
    for (double bytes : sweep) {
      const double seconds = alpha + bytes / bandwidth.at(calibration_footprint(bytes));
      measured.samples.push_back({static_cast<std::int64_t>(bytes), 10, seconds * (1 + 0.01 * pair), seconds});
    }
    measurements.pairs.push_back(measured);
  }
  measurements.concurrent = {2, {{1 << 21, 5, 2.0 * (1 << 21) / 60e9, 60e9}, {1 << 26, 5, 2.0 * (1 << 26) / 15e9, 15e9}}};
  for (std::int64_t bytes : {std::int64_t{65536}, std::int64_t{1} << 20, std::int64_t{16} << 20, std::int64_t{64} << 20})
    measurements.reduce.push_back(
        {bytes, 5, static_cast<double>(bytes) / reduce_rate.at(3.0 * static_cast<double>(bytes))});
  const calibration::FittedParameters fit = calibration::fit_parameters(measurements, 2);
  EXPECT_NEAR(fit.alpha_seconds, alpha, 0.02 * alpha);  // the pairs are 0, 1 and 2 % slower
  const FootprintCurves& curves = fit.curves;
  ASSERT_EQ(curves.link_bandwidth.points().size(), 4u);  // 262144, 2 MiB, 16 MiB, 64 MiB >= 64 KiB
  for (const CurvePoint& point : curves.link_bandwidth.points())
    EXPECT_NEAR(point.value / bandwidth.at(point.footprint_bytes), 1.0, 0.02) << point.footprint_bytes;
  EXPECT_DOUBLE_EQ(curves.link_bandwidth.points().front().footprint_bytes, 4.0 * 262144);
  for (const CurvePoint& point : curves.gamma_seconds_per_byte.points())
    EXPECT_NEAR(point.value * reduce_rate.at(point.footprint_bytes), 1.0, 1e-12);
  // Memory bus: the streaming aggregate where it exceeds one transfer (footprint 2 x 2 x 2 MiB:
  // 60 > 44 GB/s), one transfer's rate where the aggregate is lower (2 x 2 x 64 MiB: 15 < 16 GB/s).
  EXPECT_NEAR(curves.switch_capacity.at(streaming_footprint_bytes(2097152, 2)), 60e9, 1e-3);
  EXPECT_NEAR(curves.switch_capacity.at(4.0 * 67108864), curves.link_bandwidth.at(4.0 * 67108864), 1e-3);
  for (const CurvePoint& point : curves.switch_capacity.points())
    EXPECT_GE(point.value, curves.link_bandwidth.at(point.footprint_bytes));
  // Written scaled like the constants: 4 processes on 2 cores get half the bandwidth, twice gamma.
  const Topology four = calibration::calibrated_topology(fit, 4);
  EXPECT_DOUBLE_EQ(four.footprint_curves().link_bandwidth.at(1e9), curves.link_bandwidth.at(1e9) / 2);
  EXPECT_DOUBLE_EQ(four.footprint_curves().gamma_seconds_per_byte.at(1e5), curves.gamma_seconds_per_byte.at(1e5) * 2);
  EXPECT_EQ(four.footprint_curves().switch_capacity, curves.switch_capacity);
}

// A copy timed beside each reduction gives the copy cost ratio (the median of copy / reduce over
// the sizes), which the record keeps and both topologies carry; a record without copy times
// (written before they were measured) gives none, and the model then prices no copy.
TEST(CalibrationTopology, CopyCostRatioFromTheCopiesTimedBesideTheReductions) {
  auto measurements = synthetic_measurements(1e-6, 2e-10, 30e9, 1e-10);
  EXPECT_FALSE(calibration::fit_parameters(measurements, 2).copy_cost_ratio);
  EXPECT_FALSE(calibration::calibrated_topology(calibration::fit_parameters(measurements, 2), 2).copy_cost_ratio());
  const double ratios[] = {0.5, 0.7, 0.6};
  for (std::size_t i = 0; i < measurements.reduce.size(); ++i)
    measurements.reduce[i].copy_median_seconds = ratios[i] * measurements.reduce[i].median_seconds;
  const auto fit = calibration::fit_parameters(measurements, 2);
  ASSERT_TRUE(fit.copy_cost_ratio);
  EXPECT_NEAR(*fit.copy_cost_ratio, 0.6, 1e-12);
  // Per size, at the reduction's footprint (where gamma's curve has its points).
  ASSERT_EQ(fit.curves.copy_cost_ratio.points().size(), 3u);
  EXPECT_EQ(fit.curves.copy_cost_ratio.points()[0].footprint_bytes, reduce_footprint_bytes(16 << 20));
  EXPECT_NEAR(fit.curves.copy_cost_ratio.points()[1].value, 0.7, 1e-12);
  EXPECT_EQ(calibration::calibrated_topology(fit, 4).footprint_curves().copy_cost_ratio, fit.curves.copy_cost_ratio);
  EXPECT_NEAR(*calibration::calibrated_topology(fit, 4).copy_cost_ratio(), 0.6, 1e-12);
  calibration::Measurements bound = bound_measurements();
  for (calibration::ReduceSample& sample : bound.reduce) sample.copy_median_seconds = 0.6 * sample.median_seconds;
  const std::vector<int> cpus = {0, 1, 0, 1};
  const auto classes = calibration::fit_cpu_classes(bound, cpus, {});
  ASSERT_TRUE(classes);
  EXPECT_NEAR(*calibration::per_cpu_topology(calibration::fit_parameters(bound, 2), *classes, cpus).copy_cost_ratio(), 0.6,
              1e-12);
  const nlohmann::json record = calibration::calibration_record(measurements, fit, {{"tool", "test"}, {"endpoints", 4}});
  EXPECT_NEAR(record["reduce"]["copy_cost_ratio"].get<double>(), 0.6, 1e-12);
  const auto back = calibration::measurements_from_record(record);
  EXPECT_NEAR(back.measurements.reduce[1].copy_median_seconds, measurements.reduce[1].copy_median_seconds, 1e-15);
  EXPECT_NEAR(*calibration::fit_parameters(back.measurements, 2).copy_cost_ratio, 0.6, 1e-9);
  nlohmann::json bad = record;
  bad["reduce"]["samples"][0]["copy_median_us"] = 0;
  try {
    calibration::measurements_from_record(bad);
    ADD_FAILURE() << "accepted a copy time of 0";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("reduce.samples[0].copy_median_us: 0 is outside (0, 1e+09] us"), std::string::npos) << error.what();
  }
}

TEST(CalibrationFootprint, RecordReadsBackToTheSameFit) {
  auto measurements = synthetic_measurements(1e-6, 2e-10, 30e9, 1e-10);
  measurements.waiting_mates = waiting_mates({1.2, 1.4});
  const auto fit = calibration::fit_parameters(measurements, 2);
  const nlohmann::json record = calibration::calibration_record(measurements, fit, {{"tool", "test"}, {"endpoints", 4}});
  const calibration::RecordedCalibration back = calibration::measurements_from_record(record);
  EXPECT_EQ(back.cores, 2);
  EXPECT_EQ(back.endpoints, 4);
  ASSERT_EQ(back.measurements.waiting_mates.samples.size(), 2u);
  EXPECT_NEAR(back.measurements.waiting_mates.samples[1].polling_one_way_seconds, 1.4e-4, 1e-16);
  EXPECT_EQ(back.measurements.waiting_mates.samples[1].bytes, 1 << 19);
  const auto refit = calibration::fit_parameters(back.measurements, back.cores);
  EXPECT_NEAR(refit.alpha_seconds, fit.alpha_seconds, 1e-15);
  EXPECT_NEAR(refit.beta_seconds_per_byte / fit.beta_seconds_per_byte, 1.0, 1e-9);
  ASSERT_EQ(refit.curves.link_bandwidth.points().size(), fit.curves.link_bandwidth.points().size());
  for (std::size_t i = 0; i < fit.curves.link_bandwidth.points().size(); ++i)
    EXPECT_NEAR(refit.curves.link_bandwidth.points()[i].value / fit.curves.link_bandwidth.points()[i].value, 1.0, 1e-9);

  auto message = [](const nlohmann::json& bad) {
    try {
      calibration::measurements_from_record(bad);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  nlohmann::json bad = record;
  bad["ping_pong"]["pairs"][0]["samples"][3]["one_way_median_us"] = -2;
  EXPECT_NE(message(bad).find("calibration record: ping_pong.pairs[0].samples[3].one_way_median_us: -2 is outside (0, 1e+09] us"),
            std::string::npos)
      << message(bad);
  bad = record;
  bad["reduce"].erase("samples");
  EXPECT_NE(message(bad).find("calibration record: reduce: missing field \"samples\""), std::string::npos);
  bad = record;
  bad["waiting_mates"]["samples"][0]["polling_one_way_us"] = "slow";
  EXPECT_NE(message(bad).find("calibration record: waiting_mates.samples[0].polling_one_way_us"), std::string::npos)
      << message(bad);
  bad = record;
  bad.erase("endpoints");
  EXPECT_NE(message(bad).find("missing field \"endpoints\""), std::string::npos);
  // The placement is read when recorded, and a malformed one is named.
  EXPECT_TRUE(back.rank_cpus.empty());
  nlohmann::json placed = record;
  placed["rank_cpus"] = {"0", "1", "0", "1"};
  EXPECT_EQ(calibration::measurements_from_record(placed).rank_cpus, (std::vector<std::string>{"0", "1", "0", "1"}));
  placed["rank_cpus"][2] = 0;
  EXPECT_NE(message(placed).find("calibration record: rank_cpus[2]: is 0; expected a CPU list"), std::string::npos)
      << message(placed);
}

// The reduce sizes reach past the last-level cache without a gap wider than 2x from 4 MiB on, so
// that the gamma curve does not interpolate across the cache's edge (docs/calibration.md).
TEST(CalibrationMeasure, ReduceSizesSampleTheCacheEdge) {
  const std::vector<std::int64_t> sizes = calibration::reduce_sizes();
  ASSERT_GE(sizes.size(), 5u);
  EXPECT_EQ(sizes.front(), 65536);
  EXPECT_GE(sizes.back(), std::int64_t{64} << 20);
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    EXPECT_LT(sizes[i - 1], sizes[i]);
    if (sizes[i - 1] >= (std::int64_t{4} << 20)) {
      EXPECT_LE(sizes[i], 2 * sizes[i - 1]) << sizes[i - 1];
    }
  }
}

TEST(CalibrationMeasure, PairsToMeasure) {
  EXPECT_EQ(calibration::pairs_to_measure(2).size(), 1u);
  EXPECT_EQ(calibration::pairs_to_measure(8).size(), 28u);
  const auto sample = calibration::pairs_to_measure(64);
  EXPECT_GE(sample.size(), 4u);
  EXPECT_LE(sample.size(), 6u);
  for (const auto& [a, b] : sample) {
    EXPECT_LT(a, b);
    EXPECT_LT(b, 64);
  }
}

TEST(CalibrationMeasure, ThreadsBackendMeasuresEveryPairAndTheKernel) {
  calibration::MeasureOptions options{{8, 4096, 65536}, 0.001, 60};
  std::vector<calibration::PairMeasurement> pairs;
  calibration::ConcurrentMeasurement concurrent;
  std::vector<calibration::ReduceSample> reduce;
  calibration::WaitingMatesMeasurement waiting;
  run_threads(3, [&](Communicator& comm) {
    auto measured = calibration::measure_ping_pong(comm, options);
    auto streamed = calibration::measure_concurrent(comm, 2, {65536}, 60);
    auto reduced = calibration::measure_reduce(comm, {1 << 20, 2 << 20}, 60);
    auto mates = calibration::measure_waiting_mates(comm, options, {4096, 65536});
    if (comm.rank() == 0) {
      pairs = std::move(measured);
      concurrent = std::move(streamed);
      reduce = std::move(reduced);
      waiting = std::move(mates);
    }
  });
  ASSERT_EQ(pairs.size(), 3u);
  for (const auto& pair : pairs) {
    ASSERT_EQ(pair.samples.size(), 3u);
    for (const auto& sample : pair.samples) {
      EXPECT_GE(sample.iterations, 5);
      EXPECT_GT(sample.one_way_median_seconds, 0);
      EXPECT_LE(sample.one_way_min_seconds, sample.one_way_median_seconds);
    }
  }
  EXPECT_EQ(concurrent.active_ranks, 2);
  ASSERT_EQ(concurrent.samples.size(), 1u);
  EXPECT_GT(concurrent.samples[0].aggregate_bytes_per_second, 0);
  ASSERT_EQ(reduce.size(), 2u);
  EXPECT_GT(reduce[1].median_seconds, 0);
  EXPECT_GT(reduce[1].copy_median_seconds, 0);
  // Ranks 0 and 1 with rank 2 sleeping, then polling: both times at each size.
  EXPECT_EQ(waiting.first, 0);
  EXPECT_EQ(waiting.second, 1);
  ASSERT_EQ(waiting.samples.size(), 2u);
  EXPECT_EQ(waiting.samples[1].bytes, 65536);
  for (const auto& sample : waiting.samples) {
    EXPECT_GT(sample.sleeping_one_way_seconds, 0);
    EXPECT_GT(sample.polling_one_way_seconds, 0);
  }
  // Two ranks: no rank to wait, nothing measured.
  run_threads(2, [&](Communicator& comm) {
    EXPECT_TRUE(calibration::measure_waiting_mates(comm, options, {4096}).samples.empty());
  });
}

// --- ringlab compare ---

std::string write_temporary(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / ("ringlab-compare-test-" + name)).string();
  std::ofstream(path) << text;
  return path;
}

TEST(CompareReports, ReadsTheSampleReportAndRefusesOthers) {
  const simulator::MeasuredReport report =
      simulator::read_measured_report(RINGLAB_SOURCE_DIR "/plotting/tests/sample-report-n2.json");
  EXPECT_EQ(report.nranks, 2);
  EXPECT_EQ(report.rows.size(), 30u);
  EXPECT_GT(report.rows[0].measured_seconds, 0);
  auto refused = [](const std::string& path, const std::string& expected) {
    try {
      simulator::read_measured_report(path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
  };
  refused(write_temporary("junk.json", "{not json"), "not valid JSON");
  refused(write_temporary("schema.json", R"({"schema": "ringlab.topology/1"})"), "not \"ringlab.bench/1\"");
  refused(write_temporary("predicted.json", R"({"schema": "ringlab.bench/1", "kind": "predicted"})"), "predicted report");
  refused(write_temporary("no-config.json", R"({"schema": "ringlab.bench/1", "kind": "measured", "command": "x"})"),
          "missing field \"config\"");
  refused("/nonexistent/report.json", "bench report '/nonexistent/report.json' does not exist");
  std::ifstream sample(RINGLAB_SOURCE_DIR "/plotting/tests/sample-report-n2.json");
  nlohmann::json document = nlohmann::json::parse(sample);
  document["results"][1]["placement"] = "sideways";
  refused(write_temporary("placement.json", document.dump()), "results[1].placement: expected \"out-of-place\" or \"in-place\"");
  // Each rank's CPUs, when the report records them (config.rank_cpus, optional).
  document = nlohmann::json::parse(std::ifstream(RINGLAB_SOURCE_DIR "/plotting/tests/sample-report-n2.json"));
  EXPECT_TRUE(report.rank_cpus.empty());
  document["config"]["rank_cpus"] = {"0", "1"};
  EXPECT_EQ(simulator::read_measured_report(write_temporary("cpus.json", document.dump())).rank_cpus,
            (std::vector<std::string>{"0", "1"}));
  document["config"]["rank_cpus"][1] = 1;
  refused(write_temporary("bad-cpus.json", document.dump()), "config.rank_cpus[1]: expected a CPU list");
}

TEST(CompareReports, ErrorsAndTheirStatistics) {
  simulator::MeasuredReport report;
  report.path = "synthetic";
  report.nranks = 4;
  // measured 1, 2, 4, 8 ms at 64K..8M; a model that predicts 1.1 ms everywhere.
  for (int i = 0; i < 4; ++i)
    report.rows.push_back({"ring", std::int64_t{65536} << (2 * i), (std::int64_t{65536} << (2 * i)) / 4, simulator::Placement::in_place,
                           1e-3 * (1 << i)});
  report.rows.push_back({"ring", 1024, 256, simulator::Placement::in_place, 1e-3});  // below min_bytes: not summarised
  report.rows.push_back({"mpi-native", 65536, 16384, simulator::Placement::in_place, 1e-3});
  const simulator::Predictor constant{"constant", [](const Schedule&, std::int64_t, DataType, ReduceOp, std::int64_t, simulator::Placement) { return 1.1e-3; }};
  const simulator::Comparison comparison = simulator::compare_reports({report}, {constant}, 65536);
  ASSERT_EQ(comparison.rows.size(), 5u);
  EXPECT_NEAR(comparison.rows[0].relative_error[0], 0.1, 1e-12);
  EXPECT_NEAR(comparison.rows[3].relative_error[0], -0.8625, 1e-12);
  ASSERT_EQ(comparison.summaries.size(), 1u);
  const simulator::ErrorSummary& summary = comparison.summaries[0];
  EXPECT_EQ(summary.rows, 4);
  // |errors| 0.1, 0.45, 0.725, 0.8625: the median is the mean of the 2nd and 3rd (not the
  // nearest-rank 2nd), p90 the 4th (nearest rank).
  EXPECT_NEAR(summary.median_abs_error, 0.5875, 1e-12);
  EXPECT_NEAR(summary.p90_abs_error, 0.8625, 1e-12);
  ASSERT_EQ(comparison.notes.size(), 1u);
  EXPECT_NE(comparison.notes[0].find("mpi-native"), std::string::npos);
  const nlohmann::json document = simulator::compare_to_json(comparison, 65536, {{"command", "test"}});
  EXPECT_EQ(document["schema"], "ringlab.compare/1");
  EXPECT_EQ(document["rows"].size(), 5u);
  EXPECT_NEAR(document["summary"][0]["median_abs_error"].get<double>(), 0.5875, 1e-12);
}

TEST(CompareReports, ClosedFormPredictorPricesTheScheduleTheBenchRan) {
  const Topology topology = make_preset_topology("switch:4,bw=1e9,lat=1e-6");
  simulator::ClosedFormModel model(topology, 0);
  const simulator::Predictor closed_form{"closed-form", [&](const Schedule& schedule, std::int64_t count, DataType type, ReduceOp,
                                                                        std::int64_t, simulator::Placement) {
                                           return model.predict(schedule, count, type).seconds;
                                         }};
  simulator::MeasuredReport report;
  report.nranks = 4;
  report.rows.push_back({"ring", 4 << 20, 1 << 20, simulator::Placement::out_of_place, 1e-2});
  const auto comparison = simulator::compare_reports({report}, {closed_form}, 0);
  // ring, N = 4, n = 4 MiB on 1 GB/s links, 2 hops of 1 us: 6 steps x 2 us + 2 x 3/4 x n / 1e9.
  const double expected = 6 * 2e-6 + 2 * 0.75 * (4 << 20) / 1e9;
  EXPECT_NEAR(comparison.rows[0].predicted_seconds[0], expected, 1e-9);
}

TEST(CompareReports, PassesTheReportsSegmentSizeToThePredictors) {
  std::vector<std::int64_t> seen;
  const simulator::Predictor recording{"recording", [&](const Schedule&, std::int64_t, DataType, ReduceOp, std::int64_t segment,
                                                              simulator::Placement) {
                                         seen.push_back(segment);
                                         return 1.0;
                                       }};
  simulator::MeasuredReport whole;
  whole.nranks = 2;
  whole.segment_bytes = 0;
  whole.rows.push_back({"ring", 1024, 256, simulator::Placement::out_of_place, 1.0});
  simulator::MeasuredReport segmented = whole;
  segmented.segment_bytes = 65536;
  simulator::compare_reports({whole, segmented}, {recording}, 0);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 65536}));
}

TEST(CompareReports, PassesEachRowsPlacementToThePredictors) {
  std::vector<simulator::Placement> seen;
  const simulator::Predictor recording{"recording", [&](const Schedule&, std::int64_t, DataType, ReduceOp, std::int64_t,
                                                       simulator::Placement placement) {
                                         seen.push_back(placement);
                                         return 1.0;
                                       }};
  simulator::MeasuredReport report;
  report.nranks = 2;
  report.rows.push_back({"ring", 1024, 256, simulator::Placement::out_of_place, 1.0});
  report.rows.push_back({"ring", 1024, 256, simulator::Placement::in_place, 1.0});
  simulator::compare_reports({report}, {recording}, 0);
  EXPECT_EQ(seen, (std::vector<simulator::Placement>{simulator::Placement::out_of_place, simulator::Placement::in_place}));
}

}  // namespace
}  // namespace ringlab
