// Gamma per operand form: the topology's gamma_by_form table (ringlab.topology/1), how the
// simulator prices in-place and out-of-place reductions with it (simulator/type_op_gamma.hpp, both
// models) and falls back for a file without it, and what `ringlab calibrate` measures and records.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibration/calibrated_topology.hpp"
#include "calibration/calibration_record.hpp"
#include "calibration/form_reduce.hpp"
#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/type_op_gamma.hpp"
#include "topology/presets.hpp"
#include "topology/topology_io.hpp"

namespace ringlab {
namespace {

using ::testing::HasSubstr;

// The reference (out of place, one rank) 2e-11 s/B in cache and 1e-10 out; with both ranks
// reducing, out of place costs 1.2 x that, in place 1.0 x in cache and 0.8 x out of cache.
const std::vector<FormGamma> form_rows = {{"out-of-place", 1, 2e-11, 1e-10},
                                          {"in-place", 1, 1.5e-11, 7e-11},
                                          {"out-of-place", 2, 2.4e-11, 1.2e-10},
                                          {"in-place", 2, 2e-11, 8e-11}};

// host-shm:2 with gamma 1e-10 and a gamma curve from the reference's in-cache value (192 KiB) to
// its out-of-cache one (192 MiB); the form table when given.
Topology with_forms(const std::vector<FormGamma>& rows = form_rows) {
  Topology topology = make_preset_topology("host-shm:2,cores=2");
  topology.set_gamma_seconds_per_byte(1e-10);
  FootprintCurves curves;
  curves.gamma_seconds_per_byte = FootprintCurve({{196608, 2e-11}, {201326592, 1e-10}});
  topology.set_footprint_curves(curves);
  if (!rows.empty()) topology.set_gamma_by_form(rows);
  return topology;
}

const char* const form_old_calibration = RINGLAB_SOURCE_DIR "/results/calibration/2026-12-04-n2.json";

TEST(TopologyFormGamma, TableRoundTripsThroughTheJsonAndOldFilesLoad) {
  const Topology topology = with_forms();
  const nlohmann::json document = to_json(topology);
  ASSERT_TRUE(document.contains("gamma_by_form"));
  EXPECT_EQ(document["gamma_by_form"][3],
            (nlohmann::json{{"form", "in-place"}, {"ranks_reducing", 2}, {"in_cache_seconds_per_byte", 2e-11},
                            {"out_of_cache_seconds_per_byte", 8e-11}}));
  EXPECT_EQ(topology_from_json(document).gamma_by_form(), form_rows);
  std::ostringstream text;
  write_topology_json(text, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(text.str())).gamma_by_form(), form_rows);
  EXPECT_FALSE(to_json(make_preset_topology("switch:2")).contains("gamma_by_form"));
  EXPECT_TRUE(read_topology_file(form_old_calibration).gamma_by_form().empty());
  // The in-place gamma the simulator sets is never written.
  Topology priced = topology;
  priced.set_in_place_gamma_seconds_per_byte(5e-11);
  EXPECT_EQ(to_json(priced), document);
}

TEST(TopologyFormGamma, RefusesMalformedRows) {
  const auto refusal = [](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json document = to_json(with_forms());
    change(document["gamma_by_form"]);
    return [document] { topology_from_json(document); };
  };
  const auto throws_saying = [](const std::string& text) {
    return ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(text));
  };
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[0]["ranks_reducing"] = 0; }),
              throws_saying("gamma_by_form[0].ranks_reducing"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[1]["out_of_cache_seconds_per_byte"] = 0; }),
              throws_saying("gamma_by_form[1].out_of_cache_seconds_per_byte: 0 is outside (0, 0.001] s/B"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[3]["ranks_reducing"] = 1; }),
              throws_saying("gamma_by_form[3] repeats in-place with 1 ranks reducing"));
  EXPECT_THAT(refusal([](nlohmann::json& rows) { rows[2].erase("form"); }),
              throws_saying("gamma_by_form[2]: missing field \"form\""));
  EXPECT_THAT([] { simulator::check_type_op_gammas(with_forms({form_rows[0], {"inplace", 2, 2e-11, 8e-11}})); },
              throws_saying("gamma_by_form[1].form is \"inplace\": expected \"in-place\" or \"out-of-place\""));
  EXPECT_THAT([] { simulator::check_type_op_gammas(with_forms({form_rows[2], form_rows[3]})); },
              throws_saying("gamma_by_form has no out-of-place row with ranks_reducing 1"));
}

TEST(SimulatorFormGamma, PricesEachFormWithItsRowOfTheMostRanks) {
  const Topology topology = with_forms();
  const double out_of_cache = 1e9;
  const double in_cache = 196608;
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::float32, ReduceOp::sum, out_of_cache), 1.2e-10);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::float32, ReduceOp::sum, out_of_cache, Placement::in_place),
                   8e-11);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::float32, ReduceOp::sum, in_cache), 2.4e-11);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(topology, DataType::float32, ReduceOp::sum, in_cache, Placement::in_place), 2e-11);
  // On top of a pair's ratio: bfloat16/max 3 x float32/sum out of cache.
  Topology pairs = topology;
  pairs.set_gamma_by_type_op({{"float32", "sum", 2e-11, 1e-10}, {"bfloat16", "max", 1.6e-10, 3e-10}});
  EXPECT_DOUBLE_EQ(simulator::gamma_for(pairs, DataType::bfloat16, ReduceOp::max, out_of_cache), 3.6e-10);
  EXPECT_DOUBLE_EQ(simulator::gamma_for(pairs, DataType::bfloat16, ReduceOp::max, out_of_cache, Placement::in_place),
                   2.4e-10);
  // A form without a row is priced with the reference: here in place, measured alone only.
  const Topology alone = with_forms({form_rows[0], form_rows[1], form_rows[2]});
  EXPECT_DOUBLE_EQ(simulator::gamma_for(alone, DataType::float32, ReduceOp::sum, out_of_cache, Placement::in_place), 7e-11);
}

TEST(SimulatorFormGamma, WarnsOnceNamingTheFormsAFilePricesWithItsGamma) {
  const Topology old = read_topology_file(form_old_calibration);
  std::vector<std::string> warnings;
  simulator::TypeOpPricing pricing(old, std::nullopt, [&](const std::string& line) { warnings.push_back(line); });
  const simulator::TypeOpPricing::Priced priced = pricing.at(DataType::float32, ReduceOp::sum);
  pricing.at(DataType::float32, ReduceOp::sum);
  EXPECT_EQ(&priced.topology, &old);  // as before the table: the file as it is
  EXPECT_EQ(priced.gamma_seconds_per_byte, *old.gamma_seconds_per_byte());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("has no gamma for in-place and out-of-place reductions (no gamma_by_form table"));
  warnings.clear();
  const Topology in_place_missing = with_forms({form_rows[0], form_rows[2]});
  simulator::TypeOpPricing partial(in_place_missing, std::nullopt, [&](const std::string& line) { warnings.push_back(line); });
  partial.at(DataType::float32, ReduceOp::sum);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("no gamma for in-place reductions (no row in its gamma_by_form table)"));
  warnings.clear();
  const Topology complete = with_forms();
  simulator::TypeOpPricing full(complete, std::nullopt, [&](const std::string& line) { warnings.push_back(line); });
  full.at(DataType::float32, ReduceOp::sum);
  simulator::TypeOpPricing given(old, 5e-11, [&](const std::string& line) { warnings.push_back(line); });
  given.at(DataType::float32, ReduceOp::sum);
  EXPECT_TRUE(warnings.empty());
}

// An old file prices float32/sum in place exactly as a model built on it with its gamma did.
TEST(SimulatorFormGamma, OldFilePricesFloat32SumInPlaceExactlyAsBefore) {
  const Topology old = read_topology_file(form_old_calibration);
  simulator::TypeOpPricing pricing(old, std::nullopt, {});
  const simulator::TypeOpPricing::Priced priced = pricing.at(DataType::float32, ReduceOp::sum);
  for (const char* algorithm : {"ring", "recursive_doubling", "halving_doubling"}) {
    const Schedule schedule = make_schedule(algorithm, Collective::allreduce, 2, {});
    for (const std::int64_t count : {std::int64_t{1} << 14, std::int64_t{1} << 24}) {
      simulator::ClosedFormModel closed_form(priced.topology, priced.gamma_seconds_per_byte);
      simulator::ClosedFormModel closed_before(old, *old.gamma_seconds_per_byte());
      EXPECT_EQ(closed_form.predict(schedule, count, DataType::float32, Placement::in_place).seconds,
                closed_before.predict(schedule, count, DataType::float32, Placement::in_place).seconds);
      simulator::FlowLevelModel flow(priced.topology, priced.gamma_seconds_per_byte);
      simulator::FlowLevelModel flow_before(old, *old.gamma_seconds_per_byte());
      EXPECT_EQ(flow.predict(schedule, count, DataType::float32, Placement::in_place).prediction.seconds,
                flow_before.predict(schedule, count, DataType::float32, Placement::in_place).prediction.seconds);
    }
  }
}

// Both models on host-shm:4 without curves, out-of-place reductions at 1e-10 s/B and in-place
// ones at 5e-11: an in-place call is priced at the in-place gamma throughout; out of place, ring
// reduces every chunk once into a fresh output (all out of place) and recursive_doubling reduces
// the whole buffer out of place in step 0 and in place in step 1.
TEST(SimulatorFormGamma, ModelsPriceEachReductionByItsForm) {
  Topology forms = make_preset_topology("host-shm:4,cores=4");
  forms.set_gamma_seconds_per_byte(1e-10);
  forms.set_in_place_gamma_seconds_per_byte(5e-11);
  const Topology plain = make_preset_topology("host-shm:4,cores=4");
  const std::int64_t count = std::int64_t{1} << 22;  // 16 MiB of float32
  const double bytes = 4.0 * static_cast<double>(count);
  const Schedule ring = make_schedule("ring", Collective::allreduce, 4, {});
  const Schedule doubling = make_schedule("recursive_doubling", Collective::allreduce, 4, {});
  for (const Schedule* schedule : {&ring, &doubling}) {
    SCOPED_TRACE(schedule->algorithm);
    simulator::ClosedFormModel closed(forms, 1e-10);
    simulator::ClosedFormModel closed_out(plain, 1e-10);
    simulator::ClosedFormModel closed_in(plain, 5e-11);
    simulator::FlowLevelModel flow(forms, 1e-10);
    simulator::FlowLevelModel flow_out(plain, 1e-10);
    simulator::FlowLevelModel flow_in(plain, 5e-11);
    EXPECT_DOUBLE_EQ(closed.predict(*schedule, count, DataType::float32, Placement::in_place).seconds,
                     closed_in.predict(*schedule, count, DataType::float32).seconds);
    EXPECT_DOUBLE_EQ(flow.predict(*schedule, count, DataType::float32, Placement::in_place).prediction.seconds,
                     flow_in.predict(*schedule, count, DataType::float32).prediction.seconds);
    const double closed_out_of_place = closed.predict(*schedule, count, DataType::float32).seconds;
    const double flow_out_of_place = flow.predict(*schedule, count, DataType::float32).prediction.seconds;
    const double all_out = closed_out.predict(*schedule, count, DataType::float32).seconds;
    if (schedule == &ring) {
      EXPECT_DOUBLE_EQ(closed_out_of_place, all_out);
      EXPECT_DOUBLE_EQ(flow_out_of_place, flow_out.predict(*schedule, count, DataType::float32).prediction.seconds);
    } else {
      EXPECT_NEAR(closed_out_of_place, all_out - bytes * (1e-10 - 5e-11), 1e-12);
      EXPECT_LT(flow_out_of_place, flow_out.predict(*schedule, count, DataType::float32).prediction.seconds);
      EXPECT_GT(flow_out_of_place, flow_in.predict(*schedule, count, DataType::float32).prediction.seconds);
    }
    // A given gamma prices both forms alike.
    simulator::ClosedFormModel given(forms, 7e-11);
    simulator::ClosedFormModel given_plain(plain, 7e-11);
    EXPECT_EQ(given.predict(*schedule, count, DataType::float32).seconds,
              given_plain.predict(*schedule, count, DataType::float32).seconds);
  }
}

TEST(CalibrationFormGamma, TimesBothFormsAndFitsTimePerOperandByte) {
  const std::vector<double> medians = calibration::time_reduce_form(Placement::in_place, 4096, 65536);
  ASSERT_EQ(medians.size(), 2u);
  EXPECT_GT(medians[0], 0);
  EXPECT_GT(medians[1], 0);
  const calibration::FormReduceMeasurement measurement{
      65536, 67108864, 1000, 5,
      {{Placement::out_of_place, 1, 65536 * 2e-11, 67108864 * 1e-10}, {Placement::in_place, 2, 65536 * 2e-11, 67108864 * 8e-11}}};
  const std::vector<FormGamma> fitted = calibration::fit_form_gammas(measurement);
  ASSERT_EQ(fitted.size(), 2u);
  EXPECT_EQ(fitted[1].form, "in-place");
  EXPECT_EQ(fitted[1].ranks_reducing, 2);
  EXPECT_DOUBLE_EQ(fitted[1].out_of_cache_seconds_per_byte, 8e-11);
  calibration::FormReduceMeasurement zero = measurement;
  zero.samples[1].in_cache_median_seconds = 0;
  EXPECT_THAT([&] { calibration::fit_form_gammas(zero); },
              ::testing::ThrowsMessage<calibration::FitError>(HasSubstr("in-place with 2 ranks reducing, in cache")));
  // The calibrated topology carries the rows scaled like gamma (4 processes on the record's cores:
  // x 2), and the record keeps the samples for the next refit.
  calibration::RecordedCalibration recorded = calibration::read_calibration_file(form_old_calibration);
  recorded.measurements.reduce_by_form = measurement;
  const calibration::FittedParameters fit = calibration::fit_parameters(recorded.measurements, recorded.cores);
  const Topology topology = calibration::calibrated_topology(fit, 2 * recorded.cores);
  ASSERT_EQ(topology.gamma_by_form().size(), 2u);
  EXPECT_DOUBLE_EQ(topology.gamma_by_form()[1].out_of_cache_seconds_per_byte, 1.6e-10);
  const nlohmann::json record =
      calibration::calibration_record(recorded.measurements, fit, {{"endpoints", 2 * recorded.cores}});
  const calibration::FormReduceMeasurement read = calibration::measurements_from_record(record).measurements.reduce_by_form;
  ASSERT_EQ(read.samples.size(), 2u);
  EXPECT_EQ(read.samples[1].form, Placement::in_place);
  EXPECT_EQ(read.samples[1].ranks_reducing, 2);
  EXPECT_NEAR(read.samples[1].out_of_cache_median_seconds, 67108864 * 8e-11, 1e-12);
  nlohmann::json misspelled = record;
  misspelled["reduce_by_form"]["samples"][0]["form"] = "inplace";
  EXPECT_THAT([&] { calibration::measurements_from_record(misspelled); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("reduce_by_form.samples[0].form")));
  // An old record refits without the table.
  EXPECT_TRUE(calibration::calibrated_topology(
                  calibration::fit_parameters(calibration::read_calibration_file(form_old_calibration).measurements, 2), 2)
                  .gamma_by_form()
                  .empty());
}

}  // namespace
}  // namespace ringlab
