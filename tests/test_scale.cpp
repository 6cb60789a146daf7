// Issue 33, the closed form at the scale of real clusters: the dragonfly preset, the rank
// symmetries the presets declare (topology/symmetry.hpp), route costs priced from a
// representative rank (simulator/route_costs.hpp) and the periodic circulant walk
// (simulator/closed_form_periodic.cpp), each against the same topology without its symmetry,
// which is priced as before: both sides of every condition.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/route_costs.hpp"
#include "topology/presets.hpp"
#include "topology/routing.hpp"
#include "tests/sanitizer_scale.hpp"
#include "topology/symmetry.hpp"

namespace ringlab {
namespace {

using simulator::ClosedFormModel;
using simulator::Prediction;
using simulator::RouteCosts;

Topology without_symmetry(const Topology& topology) {
  Topology plain = topology;
  plain.set_rank_symmetry(std::nullopt);
  return plain;
}

TEST(TopologyDragonfly, GroupsRoutersAndGlobalLinks) {
  const Topology topology = make_preset_topology("dragonfly:3,routers=2,ranks=2,global=1");
  EXPECT_EQ(topology.num_endpoints(), 12);
  EXPECT_EQ(topology.num_switches(), 6);
  // 12 rank links, one local link a group, one global link between each pair of groups.
  EXPECT_EQ(topology.num_links(), 12 + 3 + 3);
  Router router(topology);
  std::set<int> hops;
  for (int source = 0; source < 12; ++source)
    for (int destination = 0; destination < 12; ++destination) {
      if (source == destination) continue;
      const int route_hops = router.route(source, destination).hops();
      const bool same_router = source / 2 == destination / 2;
      const bool same_group = source / 4 == destination / 4;
      if (same_router) EXPECT_EQ(route_hops, 2);
      else if (same_group) EXPECT_EQ(route_hops, 3);
      else {
        EXPECT_GE(route_hops, 3);
        EXPECT_LE(route_hops, 5);
      }
      hops.insert(route_hops);
    }
  EXPECT_EQ(hops, (std::set<int>{2, 3, 4, 5}));
  // The defaults: 512 ranks a group.
  EXPECT_EQ(make_preset_topology("dragonfly:2").num_endpoints(), 1024);
}

TEST(TopologyDragonfly, TrunksPortsThatJoinOnePairOfRouters) {
  // Two groups, 4 global ports each: ports 0, 1 on router 0 reach router 0 of the other group.
  const Topology topology = make_preset_topology("dragonfly:2,routers=2,ranks=1,global=2,global_bw=10e9");
  int trunks = 0;
  for (int id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    if (topology.rank_of(link.from) >= 0 || topology.rank_of(link.to) >= 0) continue;
    const bool global = (link.from - 4) / 2 != (link.to - 4) / 2;
    if (global) {
      EXPECT_EQ(link.bandwidth, 20e9);
      ++trunks;
    }
  }
  EXPECT_EQ(trunks, 4);  // two links, both directions
}

TEST(TopologyDragonfly, RefusesGroupsItCannotJoin) {
  try {
    make_preset_topology("dragonfly:6,routers=2,global=2");
    FAIL() << "6 groups with 4 global ports a group";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("at most 5 groups"), std::string::npos) << error.what();
  }
  EXPECT_THROW(make_preset_topology("dragonfly:2,ranks=0"), std::invalid_argument);
  EXPECT_THROW(make_preset_topology("dragonfly:2,hops=3"), std::invalid_argument);
}

TEST(TopologySymmetry, PresetsDeclareSymmetriesThatHold) {
  for (const char* preset : {"ring:7", "ring:2", "torus2d:3x4", "torus2d:2x5", "torus2d:1x6", "dragonfly:1,routers=3,ranks=2",
                             "dragonfly:5,routers=2,ranks=2,global=2", "dragonfly:4,routers=3,ranks=1,global=3",
                             "nvswitch:4", "nvswitch:4,nodes:6,leaf_ports:3", "nvswitch:2,nodes:3", "switch:8"}) {
    const Topology topology = make_preset_topology(preset);
    ASSERT_TRUE(topology.rank_symmetry().has_value()) << preset;
    EXPECT_TRUE(rank_symmetry_holds(topology)) << preset;
  }
  // A last unit smaller than the others: no symmetry declared; other presets declare none.
  for (const char* preset : {"nvswitch:4,nodes:5,leaf_ports:3", "host-shm:4", "pcie-tree"})
    EXPECT_FALSE(rank_symmetry_holds(make_preset_topology(preset))) << preset;
}

TEST(TopologySymmetry, ADeclaredSymmetryThatDoesNotHoldIsRefused) {
  // A ring of 4 with one slower link: turning it by one rank is no automorphism.
  Topology topology("uneven ring");
  topology.set_endpoints_forward(true);
  for (int rank = 0; rank < 4; ++rank) topology.add_endpoint(fmt::format("rank{}", rank));
  for (int rank = 0; rank < 4; ++rank)
    topology.add_link(rank, (rank + 1) % 4, {rank == 3 ? 5e9 : 10e9, 1e-6});
  topology.set_rank_symmetry(RankSymmetry{{4}, {{1, 2, 3, 0}}});
  EXPECT_FALSE(rank_symmetry_holds(topology));
  topology.set_rank_symmetry(RankSymmetry{{2, 2}, {{}, {1, 0, 3, 2}}});  // swaps linked pairs: no either
  EXPECT_FALSE(rank_symmetry_holds(topology));
  topology.set_rank_symmetry(RankSymmetry{{3}, {{1, 2, 0, 3}}});  // radices do not multiply to 4
  EXPECT_FALSE(rank_symmetry_holds(topology));
  RouteCosts costs(topology);
  EXPECT_FALSE(costs.symmetric());
  EXPECT_FALSE(costs.priced_by_symmetry(0));
}

// Every pair's cost from the representatives' rows against the Router's route.
void expect_route_costs_equal_the_routers(const Topology& topology) {
  RouteCosts costs(topology);
  ASSERT_TRUE(costs.symmetric()) << topology.name();
  Router router(topology);
  for (int source = 0; source < topology.num_endpoints(); ++source) {
    EXPECT_TRUE(costs.priced_by_symmetry(source)) << topology.name() << " rank " << source;
    for (int destination = 0; destination < topology.num_endpoints(); ++destination) {
      const Route route = router.route(source, destination);
      const simulator::RouteCost cost = costs.between(source, destination);
      const std::string where = fmt::format("{}: {} -> {}", topology.name(), source, destination);
      EXPECT_NEAR(cost.latency_seconds, route.latency, 1e-15 * route.latency) << where;
      EXPECT_EQ(cost.seconds_per_byte, route.links.empty() ? 0.0 : 1.0 / route.bottleneck_bandwidth) << where;
    }
  }
}

TEST(SimulatorSymmetry, RouteCostsFromRepresentativesEqualTheRoutersRoutes) {
  for (const char* preset :
       {"ring:9", "torus2d:4x6", "torus2d:5x5,bw=3e9,lat=2e-6", "dragonfly:5,routers=2,ranks=2,global=2",
        "dragonfly:3,routers=3,ranks=2,global=1,global_bw=5e9,local_lat=1e-7", "nvswitch:4,nodes:6,leaf_ports:3",
        "nvswitch:3,nodes:2"})
    expect_route_costs_equal_the_routers(make_preset_topology(preset));
}

// Two ranks, each linked to switches 2 and 3 (switch 2 limited to `first_capacity`), with the
// swap of the ranks declared.
Topology two_ranks_two_switches(double first_capacity) {
  Topology topology("two switches");
  for (const char* rank : {"rank0", "rank1"}) topology.add_endpoint(rank);
  topology.add_switch("first", first_capacity);
  topology.add_switch("second");
  for (NodeId rank : {0, 1})
    for (NodeId hub : {2, 3}) topology.add_link(rank, hub, {10e9, 1e-6});
  topology.set_rank_symmetry(RankSymmetry{{2}, {{1, 0, 2, 3}}});
  return topology;
}

TEST(SimulatorSymmetry, ARepresentativeWhoseRoutesTieWithUnequalBottlenecksIsPricedWithoutIt) {
  // Switch 2 slower: swapping the ranks is an automorphism, but rank 0 reaches rank 1 through
  // either switch in 2 hops: node ids decide, and the bottleneck differs. RouteCosts prices such
  // a rank by the Router's routes.
  const Topology topology = two_ranks_two_switches(5e9);
  ASSERT_TRUE(rank_symmetry_holds(topology));
  RouteCosts costs(topology);
  EXPECT_TRUE(costs.symmetric());
  EXPECT_FALSE(costs.priced_by_symmetry(0));
  EXPECT_FALSE(costs.priced_by_symmetry(1));
  Router router(topology);
  EXPECT_EQ(costs.between(0, 1).seconds_per_byte, 1.0 / router.route(0, 1).bottleneck_bandwidth);
  EXPECT_EQ(costs.between(0, 1).seconds_per_byte, 1.0 / 5e9);  // through the lower-numbered switch
  // The same with both switches alike: one bottleneck, priced by symmetry.
  const Topology alike = two_ranks_two_switches(unlimited_capacity);
  RouteCosts alike_costs(alike);
  EXPECT_TRUE(alike_costs.priced_by_symmetry(0));
  EXPECT_EQ(alike_costs.between(1, 0).seconds_per_byte, 1.0 / 10e9);
}

struct ScaleAlgorithmCase {
  std::string algorithm;
  AlgorithmOptions options;
};

// Every registered algorithm, less those named in `left_out`.
std::vector<ScaleAlgorithmCase> every_algorithm(const std::set<std::string>& left_out = {}) {
  std::vector<ScaleAlgorithmCase> cases;
  for (const AlgorithmInfo& info : algorithms())
    if (!left_out.contains(std::string(info.name))) cases.push_back({std::string(info.name), {}});
  cases.push_back({"parameter_server", {0, 2}});
  return cases;
}

// Today's prediction (the topology without its symmetry) against the symmetric one, 1e-9 relative.
void expect_symmetric_prediction_equals_todays(const std::string& preset, const std::vector<std::int64_t>& counts,
                                               const std::set<std::string>& left_out = {}) {
  const Topology topology = make_preset_topology(preset);
  const Topology plain = without_symmetry(topology);
  const int nranks = topology.num_endpoints();
  ClosedFormModel fast(topology, 3e-11);
  ClosedFormModel today(plain, 3e-11);
  for (const ScaleAlgorithmCase& algorithm : every_algorithm(left_out)) {
    const Schedule schedule = make_schedule(algorithm.algorithm, Collective::allreduce, nranks, algorithm.options);
    for (std::int64_t count : counts) {
      const Prediction symmetric = fast.predict(schedule, count, DataType::float32);
      const Prediction reference = today.predict(schedule, count, DataType::float32);
      const std::string where = fmt::format("{} {} count {}", preset, algorithm.algorithm, count);
      EXPECT_NEAR(symmetric.seconds, reference.seconds, 1e-9 * reference.seconds) << where;
      ASSERT_EQ(symmetric.rank_finish_seconds.size(), reference.rank_finish_seconds.size()) << where;
      for (std::size_t rank = 0; rank < reference.rank_finish_seconds.size(); ++rank)
        ASSERT_NEAR(symmetric.rank_finish_seconds[rank], reference.rank_finish_seconds[rank], 1e-9 * reference.seconds)
            << where << " rank " << rank;
    }
  }
}

TEST(SimulatorSymmetry, ClosedFormEqualsTodaysOnSymmetricPresets) {
  // Counts with equal chunks, with a few odd chunks, and 64 MiB of float32.
  const std::vector<std::int64_t> counts = {0, 7, std::int64_t{1} << 24};
  for (const char* preset : {"torus2d:3x5", "torus2d:4x8", "torus2d:2x2", "ring:12", "dragonfly:3,routers=2,ranks=2,global=1",
                             "dragonfly:5,routers=2,ranks=3,global=2", "nvswitch:4,nodes:6,leaf_ports:3", "nvswitch:8,nodes:2",
                             "nvswitch:4,nodes:5,leaf_ports:3"})
    expect_symmetric_prediction_equals_todays(preset, counts);
}

TEST(SimulatorSymmetry, UnequalChunksWhereRoutesDifferWithinARowOrGroup) {
  // The phased run (rotated_run.hpp): loads period N, routes that differ by phase, so slots are
  // forced where a row end or group edge turns past them; one odd chunk, many, most; and a count
  // whose chunks are equal (period P: the same walk over fewer slots).
  const std::vector<std::int64_t> counts = {(std::int64_t{1} << 24) + 1, (std::int64_t{1} << 24) + 29, 1000, 63 * 4096};
  for (const char* preset : {"torus2d:7x9", "torus2d:5x13,lat=3e-6", "dragonfly:4,routers=3,ranks=2,global=1"})
    expect_symmetric_prediction_equals_todays(preset, counts);
}

TEST(SimulatorSymmetry, ClosedFormEqualsTodaysAtAThousandRanks) {
  if (!test_scale::runs_at(1000)) GTEST_SKIP() << test_scale::skip_reason;
  const std::vector<std::int64_t> counts = {std::int64_t{1} << 24, (std::int64_t{1} << 24) + 3};
  for (const char* preset : {"torus2d:32x32", "dragonfly:2", "nvswitch:8,nodes:120", "ring:1000"})
    expect_symmetric_prediction_equals_todays(preset, counts);
}

}  // namespace
}  // namespace ringlab
