// topology/: preset shapes, hop counts and bottlenecks, route determinism, the ringlab.topology/1
// JSON form (round trip, malformed input, limits).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/topology_test_helpers.hpp"
#include "topology/presets.hpp"
#include "topology/rank_groups.hpp"
#include "topology/routing.hpp"
#include "topology/topology_io.hpp"
#include "topology/topology_summary.hpp"

namespace ringlab {
namespace {

using test_support::error_of;
using test_support::path_names;

TEST(TopologyPresets, RingPartnerAtDistanceCostsThatManyHops) {
  const Topology topology = make_preset_topology("ring:8");
  EXPECT_EQ(topology.num_endpoints(), 8);
  EXPECT_EQ(topology.num_links(), 8);
  Router router(topology);
  for (int distance = 1; distance < 8; ++distance)
    EXPECT_EQ(router.route(0, distance).hops(), std::min(distance, 8 - distance)) << distance;
  const Route opposite = router.route(0, 4);
  EXPECT_EQ(opposite.hops(), 4);
  EXPECT_DOUBLE_EQ(opposite.bottleneck_bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(opposite.latency, 4e-6);
  EXPECT_EQ(router.route(0, 7).hops(), 1);  // wraps
  EXPECT_EQ(make_preset_topology("ring:2").num_links(), 1);
  EXPECT_EQ(make_preset_topology("ring:1").num_links(), 0);
}

TEST(TopologyPresets, SwitchIsTwoHopsWithTheGivenParameters) {
  const Topology topology = make_preset_topology("switch:8,bw=25e9,lat=1e-6");
  EXPECT_EQ(topology.num_switches(), 1);
  Router router(topology);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      const Route route = router.route(a, b);
      EXPECT_EQ(route.hops(), a == b ? 0 : 2);
      if (a == b) continue;
      EXPECT_DOUBLE_EQ(route.bottleneck_bandwidth, 25e9);
      EXPECT_DOUBLE_EQ(route.latency, 2e-6);
      EXPECT_EQ(topology.node(topology.directed_link(route.links[0]).to).kind, NodeKind::switch_node);
    }
}

TEST(TopologyRankGroups, RanksPerNodeComeFromTheInnermostUnitOrTheSharedSwitch) {
  EXPECT_EQ(ranks_per_node(make_preset_topology("nvswitch:8,nodes:4")), 8);
  EXPECT_EQ(ranks_per_node(make_preset_topology("nvswitch:4,nodes:3,leaf_ports:2")), 4);  // a partial unit: no symmetry
  EXPECT_EQ(ranks_per_node(make_preset_topology("torus2d:4x8")), 8);                       // a row
  EXPECT_EQ(ranks_per_node(make_preset_topology("switch:16")), 16);                       // one node
  EXPECT_EQ(ranks_per_node(make_preset_topology("fully-connected:6")), 0);                // nothing says
  // A calibrated machine's shape: every rank on a memory bus, ranks 0-1 and 2-3 on one CPU each.
  Topology cpus("two-cpus");
  for (int rank = 0; rank < 4; ++rank) cpus.add_endpoint(fmt::format("process{}", rank));
  const NodeId bus = cpus.add_switch("bus");
  const NodeId first = cpus.add_switch("cpu0");
  const NodeId second = cpus.add_switch("cpu1");
  for (int rank = 0; rank < 4; ++rank) {
    cpus.add_link(rank, bus, {1e9, 1e-6});
    cpus.add_link(rank, rank < 2 ? first : second, {1e10, 1e-7});
  }
  EXPECT_EQ(ranks_per_node(cpus), 2);
}

TEST(TopologyPresets, FullyConnectedIsOneHop) {
  const Topology topology = make_preset_topology("fully-connected:6,bw=1e9");
  EXPECT_EQ(topology.num_links(), 15);
  Router router(topology);
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      EXPECT_EQ(router.route(a, b).hops(), a == b ? 0 : 1);
  EXPECT_DOUBLE_EQ(router.route(2, 5).bottleneck_bandwidth, 1e9);
}

TEST(TopologyPresets, TorusWrapsInBothDimensions) {
  const Topology topology = make_preset_topology("torus2d:4x4");
  EXPECT_EQ(topology.num_links(), 32);
  Router router(topology);
  EXPECT_EQ(router.route(0, 3).hops(), 1);   // row wraps: (0,0) - (0,3)
  EXPECT_EQ(router.route(0, 12).hops(), 1);  // column wraps: (0,0) - (3,0)
  EXPECT_EQ(router.route(0, 15).hops(), 2);  // both wrap
  EXPECT_EQ(router.route(0, 10).hops(), 4);  // (2,2): the farthest
  EXPECT_EQ(router.route(5, 6).hops(), 1);
  // A side of 2 has one link, not two between the same pair; a side of 1 has none.
  EXPECT_EQ(make_preset_topology("torus2d:2x3").num_links(), 2 * 3 + 3 * 1);
  EXPECT_EQ(make_preset_topology("torus2d:1x5").num_links(), 5);
}

TEST(TopologyPresets, PcieTreePeerRouteCrossesTheSwitchOrTheHostBridge) {
  const Topology topology = make_preset_topology("pcie-tree,switches=2,gpus_per_switch=4,uplink_bw=6e9");
  EXPECT_EQ(topology.num_endpoints(), 8);
  EXPECT_EQ(topology.num_switches(), 3);
  Router router(topology);
  const Route same_switch = router.route(0, 3);
  EXPECT_EQ(path_names(topology, same_switch), (std::vector<std::string>{"gpu0", "pcie-switch0", "gpu3"}));
  EXPECT_DOUBLE_EQ(same_switch.bottleneck_bandwidth, 12e9);
  const Route across = router.route(1, 6);
  EXPECT_EQ(path_names(topology, across),
            (std::vector<std::string>{"gpu1", "pcie-switch0", "host-bridge", "pcie-switch1", "gpu6"}));
  EXPECT_DOUBLE_EQ(across.bottleneck_bandwidth, 6e9);
  EXPECT_DOUBLE_EQ(across.latency, 4 * 0.5e-6);
}

TEST(TopologyPresets, NvswitchClusterGoesUpAndDownTheFatTree) {
  const Topology topology = make_preset_topology("nvswitch:8,nodes:4");
  EXPECT_EQ(topology.num_endpoints(), 32);
  EXPECT_EQ(topology.num_switches(), 4 + 8 + 1);  // NVSwitches, one leaf per rail, the spine
  Router router(topology);
  const Route in_node = router.route(8, 15);
  EXPECT_EQ(path_names(topology, in_node), (std::vector<std::string>{"node1.gpu0", "node1.nvswitch", "node1.gpu7"}));
  EXPECT_DOUBLE_EQ(in_node.bottleneck_bandwidth, 300e9);
  const Route same_rail = router.route(0, 16);
  EXPECT_EQ(path_names(topology, same_rail), (std::vector<std::string>{"node0.gpu0", "unit0.rail0.leaf", "node2.gpu0"}));
  const Route cross = router.route(1, 26);
  EXPECT_EQ(path_names(topology, cross), (std::vector<std::string>{"node0.gpu1", "unit0.rail1.leaf", "spine",
                                                                    "unit0.rail2.leaf", "node3.gpu2"}));
  EXPECT_DOUBLE_EQ(cross.bottleneck_bandwidth, 25e9);
  // One node: no network at all.
  EXPECT_EQ(make_preset_topology("nvswitch:8").num_switches(), 1);
  // Units of leaf_ports nodes; a leaf's uplink carries the sum of its down links.
  const Topology units = make_preset_topology("nvswitch:2,nodes=5,leaf_ports=2");
  EXPECT_EQ(units.num_switches(), 5 + 3 * 2 + 1);
  Router units_router(units);
  const Route far = units_router.route(0, 9);  // node0.gpu0 -> node4.gpu1
  ASSERT_EQ(far.hops(), 4);
  EXPECT_DOUBLE_EQ(units.directed_link(far.links[1]).bandwidth, 2 * 25e9);
  EXPECT_DOUBLE_EQ(units.directed_link(far.links[2]).bandwidth, 1 * 25e9);
}

TEST(TopologyPresets, NvswitchTaperDividesEveryLeafUplink) {
  // 2:1 tapered spine: a leaf of 4 nodes has 4 x 25e9 down and 2 x 25e9 up; the NICs keep theirs.
  const Topology tapered = make_preset_topology("nvswitch:2,nodes=8,leaf_ports=4,taper=2");
  Router router(tapered);
  const Route far = router.route(0, 9);  // node0.gpu0 -> node4.gpu1, through the spine
  ASSERT_EQ(far.hops(), 4);
  EXPECT_DOUBLE_EQ(tapered.directed_link(far.links[0]).bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(tapered.directed_link(far.links[1]).bandwidth, 4 * 25e9 / 2);
  EXPECT_DOUBLE_EQ(tapered.directed_link(far.links[2]).bandwidth, 4 * 25e9 / 2);
  EXPECT_DOUBLE_EQ(make_preset_topology("nvswitch:2,nodes=8,leaf_ports=4").directed_link(far.links[1]).bandwidth,
                   4 * 25e9);
  EXPECT_THROW(make_preset_topology("nvswitch:2,nodes=8,taper=0"), std::invalid_argument);
}

TEST(TopologyPresets, HostShmSharesTheMemoryBusAndDividesCoresWhenOversubscribed) {
  const Topology fits = make_preset_topology("host-shm:4");
  Router router(fits);
  const Route route = router.route(0, 3);
  EXPECT_EQ(route.hops(), 2);
  ASSERT_EQ(route.limited_switches.size(), 1u);
  EXPECT_EQ(fits.node(route.limited_switches[0]).name, "memory-bus");
  EXPECT_DOUBLE_EQ(fits.node(route.limited_switches[0]).capacity, 20e9);
  EXPECT_DOUBLE_EQ(route.bottleneck_bandwidth, 6e9);
  EXPECT_DOUBLE_EQ(Router(make_preset_topology("host-shm:4,mem_bw=4e9")).route(0, 1).bottleneck_bandwidth, 4e9);
  const Topology oversubscribed = make_preset_topology("host-shm:8,cores=2");
  const Route shared = Router(oversubscribed).route(0, 1);
  EXPECT_DOUBLE_EQ(shared.bottleneck_bandwidth, 6e9 * 2 / 8);
  EXPECT_DOUBLE_EQ(shared.latency, 2 * 0.25e-6 * 8 / 2);
  // More cores than processes changes nothing.
  EXPECT_DOUBLE_EQ(Router(make_preset_topology("host-shm:2,cores=16")).route(0, 1).bottleneck_bandwidth, 6e9);
}

TEST(TopologyPresets, BadPresetsNameWhatIsWrong) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"mesh:4", "unknown topology preset 'mesh'; valid presets: fully-connected:N, switch:N, ring:N, torus2d:RxC, "
                 "pcie-tree, nvswitch:G, host-shm:N"},
      {"switch:8,bww=1", "unknown parameter 'bww'; valid parameters: bw, lat"},
      {"switch:8,bw=fast", "parameter bw='fast' must be a number of bytes/s in [1000, 1e+15] B/s"},
      {"switch:8,bw=0", "parameter bw='0'"},
      {"switch:8,lat=-1e-6", "parameter lat='-1e-6'"},
      {"switch:8,bw=1e9,bw=2e9", "'bw' is given twice"},
      {"switch:8,bw", "parameter 'bw' must be written key=value"},
      {"switch", "missing size; write switch:N"},
      {"switch:0", "size '0' must be an integer in [1, "},
      {"torus2d:4", "must be RxC"},
      {"pcie-tree:4", "takes no size"},
      {"host-shm:4,cores=0", "parameter cores='0'"},
      {"fully-connected:2000", "the limits are 1048576"},
      {"torus2d:2048x2048", "the limit is 1048576"},
      {"nvswitch:8,nodes=1000000", "the limits are"},
  };
  test_support::expect_preset_errors(cases);
}

TEST(TopologyRoutes, AreDeterministicAndIndependentOfTheCache) {
  for (const char* preset : {"nvswitch:4,nodes=6,leaf_ports=4", "torus2d:5x6", "pcie-tree,switches=3", "ring:9"}) {
    const Topology first = make_preset_topology(preset);
    const Topology second = make_preset_topology(preset);
    Router cached(first);
    Router evicting(second, 1);  // keeps one source tree at a time
    for (int a = 0; a < first.num_endpoints(); ++a)
      for (int b = 0; b < first.num_endpoints(); ++b) {
        const Route one = cached.route(a, b);
        const Route other = evicting.route(a, b);
        EXPECT_EQ(one.links, other.links) << preset << " " << a << " -> " << b;
        EXPECT_EQ(one.latency, other.latency);
        EXPECT_EQ(cached.route(a, b).links, one.links);
      }
  }
}

TEST(TopologyRoutes, PreferLowerLatencyAmongEqualHopsThenLowerNodeIds) {
  // Two 2-hop paths from endpoint 0 to 1 through switches 2 and 3; 3 is faster.
  Topology topology("diamond");
  topology.add_endpoint("a");
  topology.add_endpoint("b");
  const NodeId slow = topology.add_switch("slow");
  const NodeId fast = topology.add_switch("fast");
  topology.add_link(0, slow, {1e9, 2e-6});
  topology.add_link(slow, 1, {1e9, 2e-6});
  topology.add_link(0, fast, {1e9, 1e-6});
  topology.add_link(fast, 1, {1e9, 1e-6});
  topology.validate();
  EXPECT_EQ(path_names(topology, Router(topology).route(0, 1)), (std::vector<std::string>{"a", "fast", "b"}));
  // Equal latencies: the lower node id wins, every run.
  Topology tie("tie");
  tie.add_endpoint("a");
  tie.add_endpoint("b");
  tie.add_switch("first");
  tie.add_switch("second");
  for (NodeId hub : {3, 2})
    for (NodeId end : {0, 1}) tie.add_link(end, hub, {1e9, 1e-6});
  EXPECT_EQ(path_names(tie, Router(tie).route(0, 1)), (std::vector<std::string>{"a", "first", "b"}));
  EXPECT_EQ(path_names(tie, Router(tie).route(1, 0)), (std::vector<std::string>{"b", "first", "a"}));
}

// Correctness on thousands of ranks; the time it takes is measured by bench/micro/route_bench.cpp.
TEST(TopologyRoutes, ThousandsOfRanksRouteCorrectly) {
  const Topology topology = make_preset_topology("switch:4096");
  Router router(topology);
  for (int rank = 0; rank < 4096; ++rank) {
    const Route route = router.route(rank, (rank + 2048) % 4096);
    ASSERT_EQ(route.hops(), 2);
  }
  const Topology cluster = make_preset_topology("nvswitch:8,nodes=512");
  Router cluster_router(cluster);
  for (int rank = 0; rank < 4096; rank += 7) EXPECT_EQ(cluster_router.route(rank, 4095 - rank).source, rank);
  const Topology mesh = make_preset_topology("fully-connected:1024");
  Router mesh_router(mesh);
  for (int rank = 0; rank < 1024; ++rank) ASSERT_EQ(mesh_router.route(rank, (rank + 512) % 1024).hops(), 1);
}

TEST(TopologyRoutes, BadRanksAndSelfRoutes) {
  const Topology topology = make_preset_topology("switch:4");
  Router router(topology);
  EXPECT_THROW(router.route(0, 4), std::out_of_range);
  EXPECT_THROW(router.route(-1, 0), std::out_of_range);
  const Route self = router.route(2, 2);
  EXPECT_EQ(self.hops(), 0);
  EXPECT_EQ(self.latency, 0);
  EXPECT_EQ(self.bottleneck_bandwidth, unlimited_capacity);
}

TEST(TopologyJson, EveryPresetRoundTrips) {
  for (const PresetInfo& info : preset_catalog()) {
    const std::string preset = info.name == "pcie-tree"   ? "pcie-tree,switches=3,gpus_per_switch=2"
                               : info.name == "torus2d"   ? "torus2d:3x4"
                               : info.name == "nvswitch"  ? "nvswitch:4,nodes=3"
                               : info.name == "host-shm" ? "host-shm:6,cores=4"
                               : info.name.find('-') != std::string_view::npos && info.name != "fully-connected"
                                   ? std::string(info.name) + ",nodes=2"
                                                          : std::string(info.name) + ":5";
    const Topology original = make_preset_topology(preset);
    const nlohmann::json document = to_json(original);
    EXPECT_EQ(document.at("schema"), "ringlab.topology/1");
    std::ostringstream written;
    write_topology_json(written, original);
    const Topology copy = topology_from_json(nlohmann::json::parse(written.str()));
    EXPECT_EQ(to_json(copy), document) << preset;
    EXPECT_EQ(copy.name(), preset);
    Router original_router(original);
    Router copy_router(copy);
    for (int b = 1; b < original.num_endpoints(); ++b)
      EXPECT_EQ(original_router.route(0, b).links, copy_router.route(0, b).links) << preset;
  }
}

TEST(TopologyJson, AsymmetricLinksAndDefaultsRoundTrip) {
  const nlohmann::json document = nlohmann::json::parse(R"({
    "schema": "ringlab.topology/1",
    "nodes": [{"kind": "endpoint"}, {"kind": "endpoint", "name": "b"}, {"kind": "switch", "capacity": 5e9}],
    "links": [{"a": 0, "b": 2, "a_to_b": {"bandwidth": 1e9, "latency": 0}, "b_to_a": {"bandwidth": 2e9, "latency": 1e-6}},
              {"a": 1, "b": 2, "bandwidth": 3e9, "latency": 2e-6}]})");
  const Topology topology = topology_from_json(document);
  EXPECT_EQ(topology.name(), "custom");
  EXPECT_FALSE(topology.endpoints_forward());
  EXPECT_EQ(topology.node(0).name, "node0");
  Router router(topology);
  EXPECT_DOUBLE_EQ(router.route(0, 1).bottleneck_bandwidth, 1e9);
  EXPECT_DOUBLE_EQ(router.route(1, 0).bottleneck_bandwidth, 2e9);
  EXPECT_DOUBLE_EQ(router.route(1, 0).latency, 3e-6);
  const Topology copy = topology_from_json(to_json(topology));
  EXPECT_EQ(to_json(copy), to_json(topology));
  EXPECT_DOUBLE_EQ(copy.node(2).capacity, 5e9);
}

nlohmann::json small_switch_document() { return to_json(make_preset_topology("switch:3")); }

TEST(TopologyJson, MalformedDocumentsNameThePathAndTheFix) {
  struct Case {
    std::function<void(nlohmann::json&)> change;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& d) { d = nlohmann::json::array(); }, "topology JSON: (top level): expected a JSON object"},
      {[](nlohmann::json& d) { d.erase("schema"); }, "(top level): missing field \"schema\""},
      {[](nlohmann::json& d) { d["schema"] = "ringlab.topology/2"; }, "schema: is \"ringlab.topology/2\"; this build reads"},
      {[](nlohmann::json& d) { d["colour"] = 1; }, "unknown field \"colour\"; valid fields: schema, name"},
      {[](nlohmann::json& d) { d.erase("links"); }, "missing field \"links\""},
      {[](nlohmann::json& d) { d["nodes"] = 3; }, "nodes: expected an array"},
      {[](nlohmann::json& d) { d["endpoints_forward"] = "yes"; }, "endpoints_forward: expected true or false"},
      {[](nlohmann::json& d) { d["nodes"][1]["kind"] = "router"; }, "nodes[1].kind: is \"router\"; expected"},
      {[](nlohmann::json& d) { d["nodes"][1]["id"] = 7; }, "nodes[1].id: is 7 but must equal the node's position 1"},
      {[](nlohmann::json& d) { d["nodes"][0]["capacity"] = 1e9; }, "nodes[0].capacity: only switches"},
      {[](nlohmann::json& d) { d["nodes"][3]["capacity"] = 0; }, "nodes[3].capacity: 0 is outside [1000, 1e+15] B/s"},
      {[](nlohmann::json& d) { d["nodes"][2].erase("kind"); }, "nodes[2]: missing field \"kind\""},
      {[](nlohmann::json& d) { d["links"][1]["bandwidth"] = -5; }, "links[1].bandwidth: -5 is outside [1000, 1e+15] B/s"},
      {[](nlohmann::json& d) { d["links"][1]["bandwidth"] = 0; }, "links[1].bandwidth: 0 is outside [1000, 1e+15] B/s"},
      {[](nlohmann::json& d) { d["links"][1]["bandwidth"] = "fast"; }, "links[1].bandwidth: is \"fast\"; expected a number in [1000, 1e+15] B/s"},
      {[](nlohmann::json& d) { d["links"][0]["latency"] = -1; }, "links[0].latency: -1 is outside [0, 10] s"},
      {[](nlohmann::json& d) { d["links"][0].erase("latency"); }, "links[0]: missing field \"latency\""},
      {[](nlohmann::json& d) { d["links"][2]["b"] = 9; }, "links[2].b: node 9 does not exist; node ids are 0..3"},
      {[](nlohmann::json& d) { d["links"][2]["a"] = 3; }, "links[2]: joins node 3 to itself"},
      {[](nlohmann::json& d) { d["links"][0]["a_to_b"] = {{"bandwidth", 1}, {"latency", 0}}; }, "give either"},
      {[](nlohmann::json& d) { d["links"][0]["speed"] = 1; }, "links[0]: unknown field \"speed\""},
      {[](nlohmann::json& d) { d["links"].push_back(d["links"][0]); }, "links[3] joins nodes 0 and 3 like links[0]"},
      {[](nlohmann::json& d) { d["links"].erase(2); }, "endpoint 2 ('rank2', node 2) is not connected to endpoint 0"},
      {[](nlohmann::json& d) { d["nodes"].push_back({{"kind", "switch"}}); }, "switch 'node4' (node 4) is not connected"},
      {[](nlohmann::json& d) { d["nodes"] = nlohmann::json::array(); d["links"] = nlohmann::json::array(); },
       "nodes: the topology has no endpoint"},
  };
  for (const Case& test_case : cases) {
    nlohmann::json document = small_switch_document();
    test_case.change(document);
    const std::string message = error_of([&] { topology_from_json(document); });
    EXPECT_NE(message.find(test_case.expected), std::string::npos) << "got: " << message;
  }
}

TEST(TopologyJson, EndpointsThatDoNotRelayNeedACommonSwitch) {
  nlohmann::json ring = to_json(make_preset_topology("ring:4"));
  ring["endpoints_forward"] = false;
  EXPECT_NE(error_of([&] { topology_from_json(ring); })
                .find("endpoint 0 ('rank0', node 0) cannot reach endpoint 2 ('rank2', node 2): endpoints do not relay"),
            std::string::npos);
  // Two switches joined through a third are one cluster: every endpoint reaches every other.
  const nlohmann::json tree = to_json(make_preset_topology("pcie-tree,switches=4,gpus_per_switch=1"));
  EXPECT_EQ(topology_from_json(tree).num_endpoints(), 4);
}

TEST(TopologyJson, AbsurdSizesAreRefusedBeforeBuilding) {
  nlohmann::json document = small_switch_document();
  document["nodes"] = nlohmann::json::array();
  document["nodes"].get_ref<nlohmann::json::array_t&>().resize(static_cast<std::size_t>(max_topology_nodes) + 1);
  EXPECT_NE(error_of([&] { topology_from_json(document); }).find("nodes: has 1048577 entries; the limit is 1048576"),
            std::string::npos);
  document = small_switch_document();
  document["links"].get_ref<nlohmann::json::array_t&>().resize(static_cast<std::size_t>(max_topology_links) + 1);
  EXPECT_NE(error_of([&] { topology_from_json(document); }).find("links: has 1048577 entries"), std::string::npos);
  document = small_switch_document();
  document["links"][0]["bandwidth"] = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { topology_from_json(document); }).find("links[0].bandwidth"), std::string::npos);
}

TEST(TopologyJson, FilesAndPresetsLoadByTheSameName) {
  const std::filesystem::path directory = std::filesystem::temp_directory_path() / "ringlab_topology_test";
  std::filesystem::create_directories(directory);
  const std::string good = (directory / "ring5.json").string();
  {
    std::ofstream out(good);
    write_topology_json(out, make_preset_topology("ring:5,bw=1e9"));
  }
  EXPECT_EQ(load_topology(good).name(), "ring:5,bw=1e9");
  EXPECT_EQ(Router(load_topology(good)).route(0, 2).hops(), 2);
  const std::string bad = (directory / "bad.json").string();
  {
    std::ofstream out(bad);
    out << "{\"schema\": \"ringlab.topology/1\", \"nodes\": [";
  }
  EXPECT_NE(error_of([&] { load_topology(bad); }).find("bad.json' is not valid JSON"), std::string::npos);
  const std::string zero = (directory / "zero.json").string();
  {
    std::ofstream out(zero);
    nlohmann::json document = small_switch_document();
    document["links"][1]["bandwidth"] = 0;
    out << document.dump();
  }
  EXPECT_NE(error_of([&] { load_topology(zero); }).find("zero.json: topology JSON: links[1].bandwidth: 0 is outside"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_topology((directory / "missing.json").string()); }).find("does not exist"),
            std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST(TopologySummary, ListsCountsLinkClassesAndRoutes) {
  std::ostringstream examples;
  print_topology_summary(examples, make_preset_topology("ring:8"), RouteListing::examples);
  EXPECT_NE(examples.str().find("8 endpoints, 0 switches, 8 full-duplex links"), std::string::npos);
  EXPECT_NE(examples.str().find("16 x 25 GB/s, 1 us"), std::string::npos);
  EXPECT_NE(examples.str().find("0 -> 4: 4 hops, bottleneck 25 GB/s, latency 4 us: rank0 -> rank1 -> rank2 -> rank3 "
                                "-> rank4"),
            std::string::npos);
  std::ostringstream all;
  print_topology_summary(all, make_preset_topology("switch:4"), RouteListing::all);
  const std::string text = all.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5 + 12);  // 5 header lines, 4 x 3 routes
}

TEST(TopologyPresets, GpuPresetFollowsPeerAccess) {
  EXPECT_EQ(preset_for_gpus(8, true), "fully-connected:8");
  EXPECT_EQ(preset_for_gpus(4, false), "pcie-tree,switches=4,gpus_per_switch=1");
  // Both name topologies of that many endpoints; without peer access every route crosses the host bridge.
  EXPECT_EQ(make_preset_topology(preset_for_gpus(8, true)).num_endpoints(), 8);
  const Topology staged = make_preset_topology(preset_for_gpus(4, false));
  EXPECT_EQ(staged.num_endpoints(), 4);
  EXPECT_EQ(Router(staged).route(0, 1).hops(), 4);
  EXPECT_THROW(preset_for_gpus(1, true), std::invalid_argument);
}

// Footprint curves (footprint_curve.hpp): interpolation in log(footprint), clamping, refusals,
// the topology at a footprint and the JSON form.
TEST(TopologyFootprintCurve, InterpolatesInLogFootprintAndClampsAtTheEnds) {
  const FootprintCurve curve({{1e3, 10.0}, {1e5, 30.0}, {1e6, 5.0}});
  EXPECT_DOUBLE_EQ(curve.at(1e3), 10.0);
  EXPECT_NEAR(curve.at(1e4), 20.0, 1e-12);  // halfway in log between 1e3 and 1e5
  EXPECT_DOUBLE_EQ(curve.at(1e5), 30.0);
  EXPECT_NEAR(curve.at(std::sqrt(1e5 * 1e6)), 17.5, 1e-9);
  EXPECT_DOUBLE_EQ(curve.at(1.0), 10.0);   // clamped below
  EXPECT_DOUBLE_EQ(curve.at(1e12), 5.0);   // and above
  EXPECT_DOUBLE_EQ(FootprintCurve({{64.0, 7.0}}).at(1e9), 7.0);  // one point: a constant
}

TEST(TopologyFootprintCurve, RefusesBadPointsNamingThem) {
  auto message = [](std::vector<CurvePoint> points) {
    try {
      FootprintCurve curve(std::move(points));
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({{1e3, 1.0}, {1e3, 2.0}}).find("points[1].footprint_bytes"), std::string::npos);
  EXPECT_NE(message({{1e3, 1.0}, {1e2, 2.0}}).find("not larger than points[0]"), std::string::npos);
  EXPECT_NE(message({{0.0, 1.0}}).find("points[0].footprint_bytes"), std::string::npos);
  EXPECT_NE(message({{1e3, 1.0}, {1e4, 0.0}}).find("points[1].value"), std::string::npos);
  EXPECT_NE(message({{1e3, -5.0}}).find("points[0].value"), std::string::npos);
  EXPECT_EQ(message({{1e3, 1.0}, {1e4, 2.0}}), "accepted");
}

TEST(TopologyFootprintCurve, AtFootprintReplacesBandwidthCapacityAndGamma) {
  Topology topology = make_preset_topology("host-shm:4,bw=10e9,lat=1e-7,mem_bw=20e9");
  topology.set_gamma_seconds_per_byte(1e-10);
  topology.set_footprint_curves({FootprintCurve({{1e6, 40e9}, {1e8, 10e9}}), FootprintCurve({{1e6, 50e9}}),
                                 FootprintCurve({{1e6, 5e-11}, {1e8, 1e-10}}), {}, {}, {}});
  const Topology small = topology.at_footprint(1e5);
  EXPECT_TRUE(small.footprint_curves().empty());
  EXPECT_DOUBLE_EQ(Router(small).route(0, 3).bottleneck_bandwidth, 40e9);
  EXPECT_DOUBLE_EQ(*small.gamma_seconds_per_byte(), 5e-11);
  EXPECT_DOUBLE_EQ(small.node(4).capacity, 50e9);
  const Topology large = topology.at_footprint(1e9);
  EXPECT_DOUBLE_EQ(Router(large).route(0, 3).bottleneck_bandwidth, 10e9);
  EXPECT_DOUBLE_EQ(*large.gamma_seconds_per_byte(), 1e-10);
  EXPECT_NEAR(Router(large).route(0, 3).latency, 2e-7, 1e-20);  // latency untouched
  // No curves: a plain copy.
  const Topology plain = make_preset_topology("switch:4,bw=25e9");
  EXPECT_DOUBLE_EQ(Router(plain.at_footprint(1e9)).route(0, 1).bottleneck_bandwidth, 25e9);
  // A link curve needs one bandwidth on every link, a capacity curve a limited switch.
  Topology mixed = make_preset_topology("pcie-tree,switches=2,gpus_per_switch=2,bw=10e9,uplink_bw=5e9");
  EXPECT_THROW(mixed.set_footprint_curves({FootprintCurve({{1e6, 1e9}}), {}, {}, {}, {}, {}}), std::invalid_argument);
  EXPECT_THROW(mixed.set_footprint_curves({{}, FootprintCurve({{1e6, 1e9}}), {}, {}, {}, {}}), std::invalid_argument);
  // A factor curve scales links of several bandwidths, each by the same factor; not with a link curve.
  EXPECT_THROW(mixed.set_footprint_curves({FootprintCurve({{1e6, 1e9}}), {}, {}, FootprintCurve({{1e6, 0.5}}), {}, {}}),
               std::invalid_argument);
  mixed.set_footprint_curves({{}, {}, {}, FootprintCurve({{1e6, 1.0}, {1e8, 0.5}}), {}, {}});
  const Topology unscaled = mixed.at_footprint(1e5);
  const Topology halved = mixed.at_footprint(1e9);
  ASSERT_EQ(unscaled.num_directed_links(), halved.num_directed_links());
  std::set<double> bandwidths;
  for (DirectedLinkId id = 0; id < halved.num_directed_links(); ++id) {
    bandwidths.insert(unscaled.directed_link(id).bandwidth);
    EXPECT_DOUBLE_EQ(halved.directed_link(id).bandwidth, unscaled.directed_link(id).bandwidth / 2);
    EXPECT_EQ(unscaled.directed_link(id).bandwidth, mixed.directed_link(id).bandwidth);
  }
  EXPECT_EQ(bandwidths, (std::set<double>{5e9, 10e9}));
}

// What topology_from_json says about a document: its error, or "accepted".
std::string reader_error(const nlohmann::json& document) {
  try {
    topology_from_json(document);
  } catch (const std::invalid_argument& error) {
    return std::string(error.what());
  }
  return std::string("accepted");
}

TEST(TopologyFootprintCurve, JsonRoundTripAndBadCurvesNamed) {
  Topology topology = make_preset_topology("host-shm:2,bw=10e9,lat=1e-7,mem_bw=20e9");
  const FootprintCurves curves{FootprintCurve({{4096, 40e9}, {1 << 30, 15e9}}),
                               FootprintCurve({{4096, 45e9}, {1 << 28, 16e9}}), FootprintCurve({{196608, 4e-11}}), {}, {}, {}};
  topology.set_footprint_curves(curves);
  const nlohmann::json document = to_json(topology);
  EXPECT_EQ(topology_from_json(document).footprint_curves(), curves);
  std::ostringstream laid_out;
  write_topology_json(laid_out, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(laid_out.str())).footprint_curves(), curves);
  EXPECT_FALSE(to_json(make_preset_topology("host-shm:2")).contains("footprint_curves"));  // optional

  nlohmann::json bad = document;
  bad["footprint_curves"]["link_bandwidth"][1]["footprint_bytes"] = 100;
  EXPECT_NE(reader_error(bad).find("footprint_curves.link_bandwidth: points[1].footprint_bytes"), std::string::npos)
      << reader_error(bad);
  bad = document;
  bad["footprint_curves"]["switch_capacity"][0]["value"] = 0;
  EXPECT_NE(reader_error(bad).find("footprint_curves.switch_capacity[0].value: 0 is outside [1000, 1e+15] B/s"), std::string::npos) << reader_error(bad);
  bad = document;
  bad["footprint_curves"]["gamma_seconds_per_byte"][0]["value"] = "fast";
  EXPECT_NE(reader_error(bad).find("footprint_curves.gamma_seconds_per_byte[0].value: is \"fast\"; expected a number"), std::string::npos);
  bad = document;
  bad["footprint_curves"]["latency"] = nlohmann::json::array();
  EXPECT_NE(reader_error(bad).find("unknown field \"latency\""), std::string::npos);
  bad = document;
  bad["footprint_curves"]["link_bandwidth"] = nlohmann::json::array();
  EXPECT_NE(reader_error(bad).find("footprint_curves.link_bandwidth: expected a non-empty array"), std::string::npos);
  // The file name leads the message of a file.
  const auto path = std::filesystem::temp_directory_path() / "ringlab-bad-curve.json";
  bad = document;
  bad["footprint_curves"]["link_bandwidth"][0]["value"] = -1;
  std::ofstream(path) << bad.dump();
  try {
    read_topology_file(path.string());
    ADD_FAILURE() << "a negative bandwidth was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(path.string() + ": topology JSON: footprint_curves.link_bandwidth[0].value: -1 is outside"),
              std::string::npos)
        << error.what();
  }
  std::filesystem::remove(path);
}

TEST(TopologyFootprintCurve, FactorCurveRoundTripsAndIsNotTakenWithALinkCurve) {
  Topology topology = make_preset_topology("pcie-tree,switches=2,gpus_per_switch=2,bw=10e9,uplink_bw=5e9");
  FootprintCurves curves;
  curves.link_bandwidth_factor = FootprintCurve({{4096, 1.5}, {1 << 30, 0.75}});
  topology.set_footprint_curves(curves);
  nlohmann::json document = to_json(topology);
  EXPECT_EQ(topology_from_json(document).footprint_curves(), curves);
  std::ostringstream summary;
  print_topology_summary(summary, topology, RouteListing::examples);
  EXPECT_NE(summary.str().find("link bandwidth factor: x1.5 at"), std::string::npos) << summary.str();
  document["footprint_curves"]["link_bandwidth"] = {{{"footprint_bytes", 4096}, {"value", 25e9}}};
  try {
    topology_from_json(document);
    ADD_FAILURE() << "two link curves were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("footprint_curves: link_bandwidth and link_bandwidth_factor"),
              std::string::npos)
        << error.what();
  }
}

TEST(TopologyCpuSharing, RoundTripsIsShownAndRefusesBadValuesNamingThem) {
  Topology topology = make_preset_topology("host-shm:4,cores=2");
  topology.set_cpu_sharing({{0, 1, 0, 1}, 0.5, 0.3});
  nlohmann::json document = to_json(topology);
  EXPECT_EQ(topology_from_json(document).cpu_sharing(), topology.cpu_sharing());
  std::ostringstream laid_out;
  write_topology_json(laid_out, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(laid_out.str())).cpu_sharing(), topology.cpu_sharing());
  std::ostringstream summary;
  print_topology_summary(summary, topology, RouteListing::examples);
  EXPECT_NE(summary.str().find("CPU sharing (CPU 0: 0 2; CPU 1: 1 3): links and gamma written for 0.5 of a core"),
            std::string::npos)
      << summary.str();
  EXPECT_FALSE(make_preset_topology("host-shm:4,cores=2").cpu_sharing());

  auto refused = [](Topology target, CpuSharing sharing, const std::string& expected) {
    try {
      target.set_cpu_sharing(std::move(sharing));
      ADD_FAILURE() << "accepted; expected " << expected;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
  };
  const Topology four = make_preset_topology("host-shm:4,cores=2");
  refused(four, {{0, 1, 0}, 0.5, 0.3}, "cpu_of_rank has 3 entries; expected one CPU per endpoint (4)");
  refused(four, {{0, 1, -1, 1}, 0.5, 0.3}, "cpu_of_rank[2] is -1");
  refused(four, {{0, 1, 0, 1}, 0, 0.3}, "written_share is 0");
  refused(four, {{0, 1, 0, 1}, 0.5, 1.5}, "waiting_rank_cost is 1.5");

  nlohmann::json bad = document;
  bad["cpu_sharing"]["waiting_rank_cost"] = -0.5;
  EXPECT_NE(reader_error(bad).find("topology JSON: cpu_sharing.waiting_rank_cost: -0.5 is outside [0, 1]"), std::string::npos) << reader_error(bad);
  bad = document;
  bad["cpu_sharing"]["cpu_of_rank"][1] = "one";
  EXPECT_NE(reader_error(bad).find("topology JSON: cpu_sharing.cpu_of_rank[1]: is \"one\""), std::string::npos) << reader_error(bad);
  bad = document;
  bad["cpu_sharing"].erase("written_share");
  EXPECT_NE(reader_error(bad).find("topology JSON: cpu_sharing: missing field \"written_share\""), std::string::npos)
      << reader_error(bad);
  bad = document;
  bad["cpu_sharing"]["cores"] = 2;
  EXPECT_NE(reader_error(bad).find("cpu_sharing: unknown field \"cores\""), std::string::npos) << reader_error(bad);
}

TEST(TopologyCopyCost, RoundTripsIsShownAndRefusesBadValuesNamingThem) {
  Topology topology = make_preset_topology("host-shm:2");
  EXPECT_FALSE(topology.copy_cost_ratio());
  EXPECT_FALSE(to_json(topology).contains("copy_cost_ratio"));
  topology.set_copy_cost_ratio(0.625);
  const nlohmann::json document = to_json(topology);
  EXPECT_EQ(topology_from_json(document).copy_cost_ratio(), 0.625);
  std::ostringstream laid_out;
  write_topology_json(laid_out, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(laid_out.str())).copy_cost_ratio(), 0.625);
  EXPECT_EQ(topology.at_footprint(1 << 20).copy_cost_ratio(), 0.625);
  // A curve replaces it at a job's footprint, and round-trips.
  Topology curved = topology;
  FootprintCurves curves;
  curves.copy_cost_ratio = FootprintCurve({{1 << 20, 0.5}, {1 << 28, 0.8}});
  curved.set_footprint_curves(curves);
  EXPECT_EQ(curved.at_footprint(1 << 10).copy_cost_ratio(), 0.5);
  EXPECT_EQ(curved.at_footprint(1 << 30).copy_cost_ratio(), 0.8);
  EXPECT_EQ(topology_from_json(to_json(curved)).footprint_curves().copy_cost_ratio, curves.copy_cost_ratio);
  std::ostringstream curve_summary;
  print_topology_summary(curve_summary, curved, RouteListing::examples);
  EXPECT_NE(curve_summary.str().find("copy cost ratio: 0.5 x gamma at 1 MiB, 0.8 x gamma at 256 MiB"), std::string::npos)
      << curve_summary.str();
  std::ostringstream summary;
  print_topology_summary(summary, topology, RouteListing::examples);
  EXPECT_NE(summary.str().find("copy cost: copying a byte costs 0.625 x gamma"), std::string::npos) << summary.str();

  EXPECT_THROW(topology.set_copy_cost_ratio(-1), std::invalid_argument);
  EXPECT_THROW(topology.set_copy_cost_ratio(std::numeric_limits<double>::infinity()), std::invalid_argument);
  nlohmann::json bad = document;
  bad["copy_cost_ratio"] = -0.5;
  EXPECT_NE(reader_error(bad).find("topology JSON: copy_cost_ratio: -0.5 is outside [0, 100]"), std::string::npos)
      << reader_error(bad);
  bad["copy_cost_ratio"] = "cheap";
  EXPECT_NE(reader_error(bad).find("copy_cost_ratio: is \"cheap\""), std::string::npos) << reader_error(bad);
}

TEST(TopologyReceiveFragments, RoundTripsIsShownAndRefusesBadValuesNamingThem) {
  Topology topology = make_preset_topology("host-shm:2");
  EXPECT_FALSE(topology.receive_fragment_bytes());
  EXPECT_FALSE(to_json(topology).contains("receive_fragment_bytes"));
  topology.set_receive_fragment_bytes(131072);
  const nlohmann::json document = to_json(topology);
  EXPECT_EQ(topology_from_json(document).receive_fragment_bytes(), 131072);
  std::ostringstream laid_out;
  write_topology_json(laid_out, topology);
  EXPECT_EQ(topology_from_json(nlohmann::json::parse(laid_out.str())).receive_fragment_bytes(), 131072);
  EXPECT_EQ(topology.at_footprint(1 << 20).receive_fragment_bytes(), 131072);
  std::ostringstream summary;
  print_topology_summary(summary, topology, RouteListing::examples);
  EXPECT_NE(summary.str().find("receive fragments: 131072 B"), std::string::npos) << summary.str();

  EXPECT_THROW(topology.set_receive_fragment_bytes(0), std::invalid_argument);
  nlohmann::json bad = document;
  for (const nlohmann::json& value : {nlohmann::json(0), nlohmann::json(-64), nlohmann::json(1.5), nlohmann::json("128K")}) {
    bad["receive_fragment_bytes"] = value;
    EXPECT_NE(reader_error(bad).find("topology JSON: receive_fragment_bytes: "), std::string::npos);
    EXPECT_NE(reader_error(bad).find("[1, 1099511627776] bytes"), std::string::npos)
        << reader_error(bad);
  }
}

}  // namespace
}  // namespace ringlab
