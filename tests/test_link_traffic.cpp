// The bytes a schedule puts on links (simulator/link_traffic.hpp) and the all-reduce lower bound
// (simulator/lower_bound.hpp): hand-worked cases, and every algorithm's flow-level prediction at
// or above the bound on the presets the algorithm map uses.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/link_traffic.hpp"
#include "simulator/lower_bound.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

constexpr std::int64_t traffic_count = 1024;  // float32: S = 4096 bytes, divisible by every chunk count used
constexpr double traffic_bytes = 4096;

struct HandTraffic {
  const char* algorithm;
  const char* preset;
  double total_in_s;    // total link bytes / S
  double busiest_in_s;  // busiest link's bytes / S
};

TEST(SimulatorLinkTraffic, HandWorkedCases) {
  const HandTraffic cases[] = {
      // ring on ring:4: 2(N-1) = 6 steps, each rank sends S/4 to its neighbour over one link: 6 S
      // in all; each link r -> r+1 carries 6 x S/4, the links r+1 -> r nothing.
      {"ring", "ring:4", 6, 1.5},
      // halving_doubling on switch:4: a rank sends S/2, S/4 (halving), S/4, S/2 (doubling) = 1.5 S,
      // each over its link up and the peer's link down: 4 x 1.5 S x 2 = 12 S; every link 1.5 S.
      {"halving_doubling", "switch:4", 12, 1.5},
      // recursive_doubling on ring:8: the whole buffer at distances 1, 2, 4: each rank sends S over
      // 1 + 2 + 4 hops, 56 S for 8 ranks (the busiest link depends on which way distance-4 routes
      // break their tie: not checked).
      {"recursive_doubling", "ring:8", 56, -1},
  };
  for (const HandTraffic& hand : cases) {
    const Topology topology = make_preset_topology(hand.preset);
    const auto traffic =
        simulator::link_traffic(make_schedule(hand.algorithm, Collective::allreduce, topology.num_endpoints()), topology,
                                traffic_count, DataType::float32);
    EXPECT_DOUBLE_EQ(traffic.total_link_bytes, hand.total_in_s * traffic_bytes) << hand.algorithm << " on " << hand.preset;
    if (hand.busiest_in_s >= 0) {
      EXPECT_DOUBLE_EQ(traffic.busiest_link_bytes, hand.busiest_in_s * traffic_bytes) << hand.algorithm << " on " << hand.preset;
    }
  }
}

TEST(SimulatorLowerBound, SwitchFourHandWorked) {
  // Per-rank cut: 12.5e9 B/s in, a = 0.5 us; halves {0,1} -> {2,3}: two links down, 25e9 B/s.
  // D: two links, 1 us.
  const auto bound = simulator::allreduce_lower_bound(make_preset_topology("switch:4,bw=12.5e9,lat=0.5e-6"));
  EXPECT_DOUBLE_EQ(bound.bisection_a_to_b.bytes_per_second, 25e9);
  EXPECT_DOUBLE_EQ(bound.bisection_b_to_a.bytes_per_second, 25e9);
  EXPECT_DOUBLE_EQ(bound.latency_seconds, 1e-6);
  EXPECT_DOUBLE_EQ(bound.seconds(0), 1e-6);
  EXPECT_DOUBLE_EQ(bound.seconds(12.5e3), 1e-6 + 0.5e-6);
  EXPECT_DOUBLE_EQ(bound.seconds(12.5e9), 1.0 + 0.5e-6);
}

TEST(SimulatorLowerBound, TaperedFatTreeIsBoundByItsSpine) {
  // nvswitch:2, 4 nodes in units of 2, 2:1 taper: the halves are the two units, joined by two leaf
  // uplinks (one per rail) of 2 x 25e9 / 2 each; a GPU alone has 300e9 + 25e9.
  const auto bound =
      simulator::allreduce_lower_bound(make_preset_topology("nvswitch:2,nodes=4,leaf_ports=2,taper=2"));
  EXPECT_DOUBLE_EQ(bound.bisection_a_to_b.bytes_per_second, 2 * 25e9);
  EXPECT_DOUBLE_EQ(bound.bisection_a_to_b.latency_seconds, 0.5e-6);
  EXPECT_DOUBLE_EQ(bound.seconds(50e9), 1.0 + 0.5e-6);
  // Untapered: 100e9 across, the spine no longer the limit at this size.
  const auto full = simulator::allreduce_lower_bound(make_preset_topology("nvswitch:2,nodes=4,leaf_ports=2"));
  EXPECT_DOUBLE_EQ(full.bisection_a_to_b.bytes_per_second, 4 * 25e9);
}

TEST(SimulatorLowerBound, RingEightHandWorked) {
  // Halves {0..3} and {4..7} are joined by links 3-4 and 7-0: 2 x 25e9 each way, as a rank's two
  // links in; D = 4 hops of 1 us.
  const auto bound = simulator::allreduce_lower_bound(make_preset_topology("ring:8"));
  EXPECT_DOUBLE_EQ(bound.bisection_a_to_b.bytes_per_second, 50e9);
  EXPECT_DOUBLE_EQ(bound.latency_seconds, 4e-6);
  EXPECT_DOUBLE_EQ(bound.seconds(50e9), 1.0 + 1e-6);
}

struct BoundCase {
  std::string algorithm;
  std::string preset;
};

class SimulatorLowerBoundHolds : public testing::TestWithParam<BoundCase> {};

TEST_P(SimulatorLowerBoundHolds, FlowLevelPredictionIsAtLeastTheBound) {
  const Topology topology = make_preset_topology(GetParam().preset);
  const auto bound = simulator::allreduce_lower_bound(topology);
  const Schedule schedule = make_schedule(GetParam().algorithm, Collective::allreduce, topology.num_endpoints());
  simulator::FlowLevelOptions options;
  options.segment_bytes = 1 << 20;
  simulator::FlowLevelModel model(topology, 0.0, options);
  for (const std::int64_t count : {std::int64_t{2}, std::int64_t{1} << 12, std::int64_t{1} << 20, std::int64_t{3} << 22}) {
    const double bytes = static_cast<double>(count) * 4;
    const double predicted = model.predict(schedule, count, DataType::float32).prediction.seconds;
    EXPECT_GE(predicted * (1 + 1e-9), bound.seconds(bytes)) << count << " elements";
  }
}

std::vector<BoundCase> bound_cases() {
  std::vector<BoundCase> cases;
  for (const AlgorithmInfo& info : algorithms())
    for (const char* preset : {"ring:8", "ring:6", "torus2d:4x4", "torus2d:8x2", "switch:8", "switch:5",
                               "nvswitch:2,nodes=4,leaf_ports=2,taper=2", "dragonfly:3,routers=2,ranks=2,global=1"})
      if (supports(info, Collective::allreduce)) cases.push_back({std::string(info.name), preset});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Presets, SimulatorLowerBoundHolds, testing::ValuesIn(bound_cases()),
                         [](const testing::TestParamInfo<BoundCase>& bound_case) {
                           std::string name = bound_case.param.algorithm + "_" + bound_case.param.preset;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace ringlab
