// Gamma per (type, op): the topology's gamma_by_type_op table (ringlab.topology/1), how the
// simulator prices each pair with it (simulator/type_op_gamma.hpp) and warns for a pair it lacks,
// what `ringlab calibrate` measures and records for it, and compare reading each row's type and op.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibration/calibrated_topology.hpp"
#include "calibration/calibration_record.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/compare.hpp"
#include "simulator/flow_level.hpp"
#include "topology/presets.hpp"
#include "collectives/schedule.hpp"
#include "collectives/algorithms/algorithm.hpp"
#include "topology/topology_io.hpp"
#include "simulator/type_op_gamma.hpp"
#include "calibration/type_op_reduce.hpp"

namespace ringlab {
namespace {

using ::testing::HasSubstr;

// Matches a callable that throws std::invalid_argument saying `text`.
auto throws_saying(const std::string& text) { return ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(text)); }

// float32/sum 2e-11 s/B in cache, 1e-10 out; bfloat16/max 8 x that in cache, 3 x out of cache (a
// kernel that computes more than it moves).
const std::vector<TypeOpGamma> gamma_rows = {{"float32", "sum", 2e-11, 1e-10}, {"bfloat16", "max", 1.6e-10, 3e-10}};

// host-shm:2 with gamma 1e-10 and a gamma curve running from the reference's in-cache value
// (192 KiB) to its out-of-cache one (192 MiB), through a point halfway between.
Topology calibrated(const std::vector<TypeOpGamma>& rows = gamma_rows) {
  Topology topology = make_preset_topology("host-shm:2,cores=2");
  topology.set_gamma_seconds_per_byte(1e-10);
  FootprintCurves curves;
  curves.gamma_seconds_per_byte = FootprintCurve({{196608, 2e-11}, {12582912, 6e-11}, {201326592, 1e-10}});
  topology.set_footprint_curves(curves);
  if (!rows.empty()) topology.set_gamma_by_type_op(rows);
  return topology;
}

const char* const old_calibration = RINGLAB_SOURCE_DIR "/results/calibration/2026-12-04-n2.json";

TEST(TopologyTypeOpGamma, TableRoundTripsThroughTheJson) {
  const Topology topology = calibrated();
  const nlohmann::json document = to_json(topology);
  ASSERT_TRUE(document.contains("gamma_by_type_op"));
  EXPECT_EQ(document["gamma_by_type_op"][1],
            (nlohmann::json{{"type", "bfloat16"}, {"op", "max"}, {"in_cache_seconds_per_byte", 1.6e-10},
                            {"out_of_cache_seconds_per_byte", 3e-10}}));
  EXPECT_EQ(topology_from_json(document).gamma_by_type_op(), gamma_rows);
  std::ostringstream text;
  write_topology_json(text, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(text.str())).gamma_by_type_op(), gamma_rows);
  EXPECT_FALSE(to_json(make_preset_topology("switch:2")).contains("gamma_by_type_op"));
}

TEST(TopologyTypeOpGamma, FileWrittenBeforeTheTableLoads) {
  const Topology topology = read_topology_file(old_calibration);
  EXPECT_TRUE(topology.gamma_by_type_op().empty());
  EXPECT_TRUE(topology.gamma_seconds_per_byte());
}

TEST(TopologyTypeOpGamma, RefusesMalformedRowsAndValuesOutOfRange) {
  const auto refusal = [](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json document = to_json(calibrated());
    change(document["gamma_by_type_op"]);
    return [document] { topology_from_json(document); };
  };
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[0]["in_cache_seconds_per_byte"] = 0; }),
              throws_saying("gamma_by_type_op[0].in_cache_seconds_per_byte: 0 is outside (0, 0.001] s/B"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[1]["out_of_cache_seconds_per_byte"] = 2e-3; }),
              throws_saying("gamma_by_type_op[1].out_of_cache_seconds_per_byte: 0.002 is outside (0, 0.001] s/B"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[1]["out_of_cache_seconds_per_byte"] = -1e-10; }),
              throws_saying("is outside (0, 0.001] s/B"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[0]["in_cache_seconds_per_byte"] = "fast"; }),
              throws_saying("gamma_by_type_op[0].in_cache_seconds_per_byte"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[1].erase("op"); }),
              throws_saying("gamma_by_type_op[1]: missing field \"op\""));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[0]["colour"] = 1; }),
              throws_saying("gamma_by_type_op[0]: unknown field \"colour\""));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[0]["type"] = ""; }),
              throws_saying("gamma_by_type_op[0].type: is \"\"; expected a name as ringlab spells it"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[1]["type"] = "float32"; rows[1]["op"] = "sum"; }),
              throws_saying("gamma_by_type_op[1] repeats float32/sum"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows = nlohmann::json::array(); }),
              throws_saying("gamma_by_type_op: expected a non-empty array"));
}

TEST(SimulatorTypeOpGamma, ScalesBetweenThePairsInAndOutOfCacheRatios) {
  const TypeOpGamma& reference = gamma_rows[0];
  const TypeOpGamma& pair = gamma_rows[1];
  EXPECT_DOUBLE_EQ(simulator::type_op_gamma(1e-10, reference, pair), 3e-10);    // out of cache: x 3
  EXPECT_DOUBLE_EQ(simulator::type_op_gamma(2e-11, reference, pair), 1.6e-10);  // in cache: x 8
  EXPECT_DOUBLE_EQ(simulator::type_op_gamma(6e-11, reference, pair), 6e-11 * 5.5);  // halfway: x (3 + 8) / 2
  EXPECT_DOUBLE_EQ(simulator::type_op_gamma(1e-11, reference, pair), 8e-11);    // faster than in cache: x 8
  EXPECT_DOUBLE_EQ(simulator::type_op_gamma(4e-10, reference, pair), 1.2e-9);   // slower than out of cache: x 3
  // A reference without a cache effect places nothing: the out-of-cache ratio everywhere.
  const TypeOpGamma flat{"float32", "sum", 1e-10, 1e-10};
  EXPECT_DOUBLE_EQ(simulator::type_op_gamma(5e-11, flat, {"int32", "prod", 4e-10, 2e-10}), 1e-10);
}

TEST(SimulatorTypeOpGamma, PricesAPairWithItsOwnGammaAndCurve) {
  const Topology topology = calibrated();
  EXPECT_FALSE(simulator::topology_for_type_op(topology, DataType::float32, ReduceOp::sum));
  EXPECT_FALSE(simulator::topology_for_type_op(topology, DataType::int32, ReduceOp::prod));  // no row
  const std::optional<Topology> pair = simulator::topology_for_type_op(topology, DataType::bfloat16, ReduceOp::max);
  ASSERT_TRUE(pair);
  EXPECT_DOUBLE_EQ(*pair->gamma_seconds_per_byte(), 3e-10);
  const std::vector<CurvePoint>& points = pair->footprint_curves().gamma_seconds_per_byte.points();
  ASSERT_EQ(points.size(), 3u);
  EXPECT_DOUBLE_EQ(points[0].value, 1.6e-10);
  EXPECT_DOUBLE_EQ(points[1].value, 3.3e-10);
  EXPECT_DOUBLE_EQ(points[2].value, 3e-10);
  // gamma_for is what the models price with: the pair's curve at the footprint.
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::bfloat16, ReduceOp::max, 196608), 1.6e-10);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::bfloat16, ReduceOp::max, 1e9), 3e-10);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::float32, ReduceOp::sum, 1e9), 1e-10);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::int32, ReduceOp::prod, 196608), 2e-11);  // the fallback
  EXPECT_DOUBLE_EQ(simulator::gamma_for(make_preset_topology("switch:2"), DataType::bfloat16, ReduceOp::max, 1e6),
                   simulator::default_gamma_seconds_per_byte);
}

TEST(SimulatorTypeOpGamma, RefusesNamesThisBuildDoesNotSpellAndATableWithoutTheReference) {
  EXPECT_THAT([] { simulator::check_type_op_gammas(calibrated({gamma_rows[0], {"bfloat61", "max", 1e-10, 1e-10}})); },
              throws_saying("topology's gamma_by_type_op[1].type is \"bfloat61\""));
  EXPECT_THAT([] { simulator::check_type_op_gammas(calibrated({gamma_rows[0], {"bf16", "max", 1e-10, 1e-10}})); },
              throws_saying("gamma_by_type_op[1].type is \"bf16\": write it as \"bfloat16\""));
  EXPECT_THAT([] { simulator::check_type_op_gammas(calibrated({gamma_rows[0], {"int32", "mean", 1e-10, 1e-10}})); },
              throws_saying("gamma_by_type_op[1].op is \"mean\""));
  const Topology without_reference = calibrated({gamma_rows[1]});
  EXPECT_THAT([&] { simulator::TypeOpPricing(without_reference, std::nullopt, {}); },
              throws_saying("gamma_by_type_op has no float32/sum row"));
}

TEST(SimulatorTypeOpGamma, WarnsOncePerPairPricedWithTheFloat32SumGamma) {
  const Topology old = read_topology_file(old_calibration);
  std::vector<std::string> warnings;
  simulator::TypeOpPricing pricing(old, std::nullopt, [&](const std::string& line) { warnings.push_back(line); });
  for (int call = 0; call < 3; ++call) {
    const simulator::TypeOpPricing::Priced priced = pricing.at(DataType::bfloat16, ReduceOp::max);
    EXPECT_EQ(&priced.topology, &old);
    EXPECT_EQ(priced.gamma_seconds_per_byte, *old.gamma_seconds_per_byte());
  }
  pricing.at(DataType::float32, ReduceOp::sum);  // the fallback itself: nothing to say
  pricing.at(DataType::float16, ReduceOp::sum);
  ASSERT_EQ(warnings.size(), 3u);  // the first: no gamma_by_form either (test_form_gamma.cpp)
  EXPECT_THAT(warnings[0], HasSubstr("no gamma_by_form table"));
  EXPECT_THAT(warnings[1], HasSubstr("has no gamma for bfloat16/max (no gamma_by_type_op table"));
  EXPECT_THAT(warnings[1], HasSubstr("priced with the float32/sum gamma"));
  EXPECT_THAT(warnings[2], HasSubstr("float16/sum"));
  // A table without the pair's row says so.
  warnings.clear();
  const Topology with_rows = calibrated();
  simulator::TypeOpPricing with_table(with_rows, std::nullopt, [&](const std::string& line) { warnings.push_back(line); });
  with_table.at(DataType::int32, ReduceOp::prod);
  with_table.at(DataType::bfloat16, ReduceOp::max);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[1], HasSubstr("int32/prod (no row in its gamma_by_type_op table)"));
}

TEST(SimulatorTypeOpGamma, GivenGammaOverridesEveryPairAndPresetsKeepTheDefault) {
  int warnings = 0;
  const Topology topology = calibrated();
  simulator::TypeOpPricing given(topology, 5e-11, [&](const std::string&) { ++warnings; });
  EXPECT_EQ(given.at(DataType::bfloat16, ReduceOp::max).gamma_seconds_per_byte, 5e-11);
  EXPECT_EQ(&given.at(DataType::bfloat16, ReduceOp::max).topology, &topology);
  const Topology old_file = read_topology_file(old_calibration);
  simulator::TypeOpPricing old(old_file, 5e-11, [&](const std::string&) { ++warnings; });
  old.at(DataType::float16, ReduceOp::min);
  const Topology preset = make_preset_topology("switch:4");
  simulator::TypeOpPricing plain(preset, std::nullopt, [&](const std::string&) { ++warnings; });
  EXPECT_EQ(plain.at(DataType::bfloat16, ReduceOp::max).gamma_seconds_per_byte, simulator::default_gamma_seconds_per_byte);
  EXPECT_EQ(warnings, 0);
  EXPECT_THROW(simulator::TypeOpPricing(topology, -1.0, {}), std::invalid_argument);
}

// ring on 2 ranks, 64 MiB (a footprint out of cache: gamma 1e-10 for float32/sum, 3e-10 for
// bfloat16/max): both models predict bfloat16/max slower than float32/sum when the table says its
// kernel is slower, the closed form by exactly the extra gamma on the 32 MiB each rank reduces,
// and alike when the table says it costs the same.
TEST(SimulatorTypeOpGamma, Bfloat16MaxIsPricedSlowerThanFloat32SumWhenTheTableSaysSo) {
  const Schedule ring = make_schedule("ring", Collective::allreduce, 2, {});
  const std::int64_t bytes = std::int64_t{64} << 20;
  const auto predictions = [&](const Topology& topology) {
    simulator::TypeOpPricing pricing(topology, std::nullopt, {});
    std::vector<double> seconds;
    for (const auto& [type, op] : {std::pair{DataType::float32, ReduceOp::sum}, std::pair{DataType::bfloat16, ReduceOp::max}}) {
      const simulator::TypeOpPricing::Priced priced = pricing.at(type, op);
      const std::int64_t count = bytes / static_cast<std::int64_t>(element_size(type));
      simulator::ClosedFormModel closed_form(priced.topology, priced.gamma_seconds_per_byte);
      simulator::FlowLevelModel flow_level(priced.topology, priced.gamma_seconds_per_byte);
      seconds.push_back(closed_form.predict(ring, count, type).seconds);
      seconds.push_back(flow_level.predict(ring, count, type).prediction.seconds);
    }
    return seconds;
  };
  const std::vector<double> slower = predictions(calibrated());
  const double extra = (3e-10 - 1e-10) * static_cast<double>(bytes / 2);
  EXPECT_NEAR(slower[2] - slower[0], extra, 1e-9 * slower[2]);  // closed form
  EXPECT_GT(slower[3] - slower[1], extra / 2);                   // flow level
  const std::vector<double> alike = predictions(calibrated({gamma_rows[0], {"bfloat16", "max", 2e-11, 1e-10}}));
  EXPECT_DOUBLE_EQ(alike[2], alike[0]);
  EXPECT_DOUBLE_EQ(alike[3], alike[1]);
  EXPECT_DOUBLE_EQ(alike[0], slower[0]);  // float32/sum as before the table
}

TEST(CalibrationTypeOpGamma, TimesEveryTypeAndOp) {
  const calibration::TypeOpReduceMeasurement measurement = calibration::time_reduce_by_type_op(4096, 65536);
  ASSERT_EQ(measurement.samples.size(), std::size(all_data_types) * std::size(all_reduce_ops));
  EXPECT_EQ(measurement.samples[7].type, DataType::float64);
  EXPECT_EQ(measurement.samples[7].op, ReduceOp::min);
  EXPECT_EQ(measurement.in_cache_iterations, calibration::in_cache_calls);
  EXPECT_EQ(measurement.out_of_cache_iterations, calibration::out_of_cache_calls);
  for (const calibration::TypeOpReduceSample& sample : measurement.samples) {
    EXPECT_GT(sample.in_cache_median_seconds, 0);
    EXPECT_GT(sample.out_of_cache_median_seconds, 0);
  }
  const std::vector<TypeOpGamma> fitted = calibration::fit_type_op_gammas(measurement);
  ASSERT_EQ(fitted.size(), measurement.samples.size());
  EXPECT_EQ(fitted[7].type, "float64");
  EXPECT_EQ(fitted[7].op, "min");
  EXPECT_DOUBLE_EQ(fitted[7].out_of_cache_seconds_per_byte, measurement.samples[7].out_of_cache_median_seconds / 65536);
}

calibration::TypeOpReduceMeasurement two_pairs() {
  return {65536, 67108864, 21, 3,
          {{DataType::float32, ReduceOp::sum, 65536 * 2e-11, 67108864 * 1e-10},
           {DataType::bfloat16, ReduceOp::max, 65536 * 1.6e-10, 67108864 * 3e-10}}};
}

TEST(CalibrationTypeOpGamma, FitIsTimePerOperandByteAndRefusesAZeroTime) {
  const std::vector<TypeOpGamma> fitted = calibration::fit_type_op_gammas(two_pairs());
  ASSERT_EQ(fitted.size(), 2u);
  EXPECT_EQ(fitted[1].type, "bfloat16");
  EXPECT_DOUBLE_EQ(fitted[1].in_cache_seconds_per_byte, 1.6e-10);
  EXPECT_DOUBLE_EQ(fitted[1].out_of_cache_seconds_per_byte, 3e-10);
  calibration::TypeOpReduceMeasurement zero = two_pairs();
  zero.samples[1].in_cache_median_seconds = 0;
  EXPECT_THAT([&] { calibration::fit_type_op_gammas(zero); }, throws_saying("bfloat16/max in cache"));
}

// A recorded calibration refitted with the table: the topology carries it scaled like gamma (x E/C:
// 4 processes on the record's cores), and the record keeps the samples for the next refit.
TEST(CalibrationTypeOpGamma, CalibratedTopologyAndRecordCarryTheTable) {
  calibration::RecordedCalibration recorded = calibration::read_calibration_file(old_calibration);
  recorded.measurements.reduce_by_type_op = two_pairs();
  const calibration::FittedParameters fit = calibration::fit_parameters(recorded.measurements, recorded.cores);
  const int endpoints = 2 * recorded.cores;
  const Topology topology = calibration::calibrated_topology(fit, endpoints);
  ASSERT_EQ(topology.gamma_by_type_op().size(), 2u);
  EXPECT_DOUBLE_EQ(topology.gamma_by_type_op()[1].out_of_cache_seconds_per_byte, 6e-10);
  EXPECT_DOUBLE_EQ(*topology.gamma_seconds_per_byte(), 2 * fit.gamma_seconds_per_byte);
  const nlohmann::json record = calibration::calibration_record(recorded.measurements, fit, {{"endpoints", endpoints}});
  const calibration::TypeOpReduceMeasurement read =
      calibration::measurements_from_record(record).measurements.reduce_by_type_op;
  ASSERT_EQ(read.samples.size(), 2u);
  EXPECT_EQ(read.samples[1].type, DataType::bfloat16);
  EXPECT_EQ(read.samples[1].op, ReduceOp::max);
  EXPECT_NEAR(read.samples[1].out_of_cache_median_seconds, 67108864 * 3e-10, 1e-12);
  EXPECT_EQ(read.out_of_cache_bytes, 67108864);
  nlohmann::json spelled = record;
  spelled["reduce_by_type_op"]["samples"][1]["type"] = "bf16";
  EXPECT_THAT([&] { calibration::measurements_from_record(spelled); },
              throws_saying("reduce_by_type_op.samples[1].type: write \"bf16\" as ringlab calibrate does: \"bfloat16\""));
  spelled["reduce_by_type_op"]["samples"][1]["out_of_cache_median_us"] = -1;
  spelled["reduce_by_type_op"]["samples"][1]["type"] = "bfloat16";
  EXPECT_THAT([&] { calibration::measurements_from_record(spelled); },
              throws_saying("reduce_by_type_op.samples[1].out_of_cache_median_us"));
  // An old record refits without the table.
  EXPECT_TRUE(calibration::calibrated_topology(calibration::fit_parameters(
                                                   calibration::read_calibration_file(old_calibration).measurements, 2),
                                               2)
                  .gamma_by_type_op()
                  .empty());
}

// The fixtures the calibration-record fuzzer starts from (fuzz/corpus/fuzz_calibration_record).
TEST(CalibrationTypeOpGamma, RecordFixturesRefitWithTheTableOrAreRefused) {
  const calibration::RecordedCalibration recorded =
      calibration::read_calibration_file(RINGLAB_SOURCE_DIR "/tests/values/calibration_type_op.json");
  const Topology topology =
      calibration::calibrated_topology(calibration::fit_parameters(recorded.measurements, recorded.cores), recorded.endpoints);
  ASSERT_EQ(topology.gamma_by_type_op().size(), 2u);
  const TypeOpGamma& row = topology.gamma_by_type_op()[1];
  EXPECT_EQ(row.type + "/" + row.op, "bfloat16/max");
  EXPECT_DOUBLE_EQ(row.in_cache_seconds_per_byte, 10.4e-6 / 65536);  // 2 processes on 2 cores: unscaled
  EXPECT_DOUBLE_EQ(row.out_of_cache_seconds_per_byte, 26100e-6 / 67108864);
  EXPECT_THAT([] { calibration::read_calibration_file(RINGLAB_SOURCE_DIR "/tests/values/calibration_type_op_alias.json"); },
              throws_saying("reduce_by_type_op.samples[1].type: write \"bf16\" as ringlab calibrate does: \"bfloat16\""));
}

TEST(CompareReports, ReadsEachRowsTypeAndOpAndPricesWithThem) {
  nlohmann::json document = nlohmann::json::parse(R"({"schema": "ringlab.bench/1", "kind": "measured",
      "command": "ringlab bench -d bfloat16 -o max", "config": {"nranks": 2, "datatype": "bfloat16", "op": "max"},
      "results": [
        {"algorithm": "ring", "size_bytes": 1024, "count": 512, "type": "bfloat16", "redop": "max",
         "placement": "in-place", "time_us": {"p50": 10}},
        {"algorithm": "ring", "size_bytes": 2048, "count": 1024, "placement": "in-place", "time_us": {"p50": 20}}]})");
  simulator::MeasuredReport report = simulator::measured_report_from_json(document, "bf16.json");
  EXPECT_EQ(report.op, ReduceOp::max);
  ASSERT_EQ(report.rows.size(), 2u);
  for (const simulator::MeasuredRow& row : report.rows) {
    EXPECT_EQ(row.type, DataType::bfloat16);
    EXPECT_EQ(row.op, ReduceOp::max);
  }
  std::vector<ReduceOp> seen;
  const simulator::Predictor recording{"recording", [&](const Schedule&, std::int64_t, DataType, ReduceOp op,
                                                        std::int64_t, simulator::Placement) {
                                         seen.push_back(op);
                                         return 1e-5;
                                       }};
  const simulator::Comparison comparison = simulator::compare_reports({report}, {recording}, 0);
  EXPECT_EQ(seen, (std::vector<ReduceOp>{ReduceOp::max, ReduceOp::max}));
  EXPECT_EQ(simulator::compare_to_json(comparison, 0, nlohmann::json::object())["rows"][0]["op"], "max");
  document["config"].erase("op");
  document["results"][0].erase("redop");
  EXPECT_EQ(simulator::measured_report_from_json(document, "old.json").rows[0].op, ReduceOp::sum);
  document["results"][1]["redop"] = "mean";
  EXPECT_THAT([&] { simulator::measured_report_from_json(document, "bad.json"); },
              throws_saying("results[1].redop: "));
}

}  // namespace
}  // namespace ringlab
