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

#include "presets.hpp"
#include "topology_io.hpp"

namespace ringlab {
namespace {

using ::testing::HasSubstr;

// Matches a callable that throws std::invalid_argument saying `text`.
auto throws_saying(const std::string& text) { return ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(text)); }

// float32/sum 2e-11 s/B in cache, 1e-10 out; bfloat16/max 8 x that in cache, 3 x out of cache (a
// kernel that computes more than it moves).
const std::vector<TypeOpGamma> table = {{"float32", "sum", 2e-11, 1e-10}, {"bfloat16", "max", 1.6e-10, 3e-10}};

// host-shm:2 with gamma 1e-10 and a gamma curve running from the reference's in-cache value
// (192 KiB) to its out-of-cache one (192 MiB), through a point halfway between.
Topology calibrated(const std::vector<TypeOpGamma>& rows = table) {
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
  EXPECT_EQ(topology_from_json(document).gamma_by_type_op(), table);
  std::ostringstream text;
  write_topology_json(text, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(text.str())).gamma_by_type_op(), table);
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

}  // namespace
}  // namespace ringlab
