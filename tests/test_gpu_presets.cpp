// topology/: the GPU system presets built from spec sheets (dgx-a100, dgx-h100, hgx-h100,
// dgx1-v100, pcie-box): counts, the DGX-1 NVLink multiset, routes, NICs, symmetry, bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/topology_test_helpers.hpp"
#include "topology/presets.hpp"
#include "topology/rank_groups.hpp"
#include "topology/routing.hpp"
#include "topology/symmetry.hpp"

namespace ringlab {
namespace {

using test_support::path_names;

// The bandwidth of the link joining two nodes, 0 when none does.
double link_between(const Topology& topology, NodeId a, NodeId b) {
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    if (topology.directed_link(id).from == a && topology.directed_link(id).to == b) return topology.directed_link(id).bandwidth;
  return 0;
}

TEST(TopologyGpuPresets, NvswitchMachinesCarryTheirSpecSheetNumbers) {
  const std::vector<std::pair<std::string, std::pair<double, double>>> machines = {
      {"dgx-a100", {300e9, 25e9}}, {"dgx-h100", {450e9, 50e9}}, {"hgx-h100", {450e9, 50e9}}};
  for (const auto& [name, numbers] : machines) {
    const Topology one = make_preset_topology(name);
    EXPECT_EQ(one.num_endpoints(), 8) << name;
    EXPECT_EQ(one.num_switches(), 1) << name;
    EXPECT_EQ(one.num_links(), 8) << name;
    EXPECT_DOUBLE_EQ(Router(one).route(0, 7).bottleneck_bandwidth, numbers.first) << name;
    EXPECT_TRUE(rank_symmetry_holds(one)) << name;
    const Topology two = make_preset_topology(name + ",nodes:2");
    EXPECT_EQ(two.num_endpoints(), 16) << name;
    EXPECT_EQ(two.num_switches(), 2 + 8 + 1) << name;  // NVSwitches, a leaf per rail, the spine
    EXPECT_EQ(two.num_links(), 16 + 16 + 8) << name;
    Router router(two);
    const Route rail = router.route(3, 11);
    EXPECT_EQ(path_names(two, rail), (std::vector<std::string>{"node0.gpu3", "unit0.rail3.leaf", "node1.gpu3"}));
    EXPECT_DOUBLE_EQ(rail.bottleneck_bandwidth, numbers.second) << name;
    EXPECT_EQ(router.route(0, 15).hops(), 4);  // rail 0 to rail 7: through the spine
    EXPECT_TRUE(rank_symmetry_holds(two)) << name;
  }
  EXPECT_EQ(make_preset_topology("dgx-a100,gpus=4").num_endpoints(), 4);
  EXPECT_EQ(ranks_per_node(make_preset_topology("dgx-h100,nodes:4")), 8);
  // A partial unit of leaf_ports nodes: the units differ, so no symmetry is declared.
  EXPECT_FALSE(make_preset_topology("dgx-a100,nodes=3,leaf_ports=2").rank_symmetry().has_value());
  EXPECT_TRUE(rank_symmetry_holds(make_preset_topology("dgx-a100,nodes=4,leaf_ports=2,taper=2")));
}

// The GPU reduces at its memory bandwidth (datasheets): 3 bytes moved per byte reduced.
TEST(TopologyGpuPresets, GammaComesFromTheGpuMemoryBandwidth) {
  EXPECT_DOUBLE_EQ(*make_preset_topology("dgx-a100").gamma_seconds_per_byte(), 3 / 2039e9);
  EXPECT_DOUBLE_EQ(*make_preset_topology("dgx-h100,nodes=2").gamma_seconds_per_byte(), 3 / 3.35e12);
  EXPECT_DOUBLE_EQ(*make_preset_topology("dgx1-v100").gamma_seconds_per_byte(), 3 / 900e9);
  EXPECT_DOUBLE_EQ(*make_preset_topology("pcie-box,gpu_mem_bw=1e12").gamma_seconds_per_byte(), 3e-12);
  EXPECT_FALSE(make_preset_topology("nvswitch:8").gamma_seconds_per_byte().has_value());
}

TEST(TopologyGpuPresets, NicIsChosenByNameOrOverridden) {
  const auto first_link = [](const std::string& preset) {
    const Topology topology = make_preset_topology(preset);
    const Route route = Router(topology).route(0, 8);
    return topology.directed_link(route.links.front());
  };
  EXPECT_DOUBLE_EQ(first_link("dgx-a100,nodes=2").bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(first_link("dgx-a100,nodes=2").latency, 0.3e-6);
  EXPECT_DOUBLE_EQ(first_link("dgx-a100,nodes=2,nic=roce100").bandwidth, 12.5e9);
  EXPECT_DOUBLE_EQ(first_link("dgx-a100,nodes=2,nic=roce100").latency, 0.5e-6);
  EXPECT_DOUBLE_EQ(first_link("dgx-h100,nodes=2,nic=efa-p5").bandwidth, 50e9);
  EXPECT_DOUBLE_EQ(first_link("dgx-h100,nodes=2,nic=tcp100").latency, 10e-6);
  EXPECT_DOUBLE_EQ(first_link("dgx-h100,nodes=2,nic=tcp100,nic_bw=1e9").bandwidth, 1e9);
  EXPECT_DOUBLE_EQ(first_link("dgx-h100,nodes=2,nic_lat=2e-6").latency, 2e-6);
}

// NVIDIA's DGX-1 with V100 whitepaper: each GPU has 6 NVLinks; a cube whose 12 edges are NVLinks
// (some doubled) and two opposite faces with their diagonals; 8 pairs with 2 links, 8 with 1.
TEST(TopologyGpuPresets, Dgx1HasTheHybridCubeMeshLinks) {
  const Topology topology = make_preset_topology("dgx1-v100");
  EXPECT_EQ(topology.num_endpoints(), 8);
  EXPECT_EQ(topology.num_switches(), 4 + 2);           // PCIe switches, CPUs
  EXPECT_EQ(topology.num_links(), 16 + 8 + 4 + 1);     // NVLink pairs, GPU-switch, switch-CPU, CPU-CPU
  EXPECT_TRUE(rank_symmetry_holds(topology));          // swapping the quads
  std::map<double, int> pairs;
  for (NodeId a = 0; a < 8; ++a) {
    double links = 0;
    for (NodeId b = 0; b < 8; ++b) links += link_between(topology, a, b) / 25e9;
    EXPECT_DOUBLE_EQ(links, 6) << "GPU " << a;
    for (NodeId b = a + 1; b < 8; ++b) ++pairs[link_between(topology, a, b)];
  }
  EXPECT_EQ(pairs, (std::map<double, int>{{0, 12}, {25e9, 8}, {50e9, 8}}));
  for (NodeId a = 0; a < 4; ++a) {
    EXPECT_GT(link_between(topology, a, a + 4), 0) << a;  // the cube's vertical edges
    for (NodeId b = a + 1; b < 4; ++b) {                  // both faces complete
      EXPECT_GT(link_between(topology, a, b), 0) << a << b;
      EXPECT_GT(link_between(topology, a + 4, b + 4), 0) << a << b;
    }
  }
  EXPECT_DOUBLE_EQ(link_between(topology, 0, 3), 50e9);
  EXPECT_DOUBLE_EQ(link_between(topology, 0, 1), 25e9);
}

TEST(TopologyGpuPresets, Dgx1RoutesOverOneIntermediateGpuWithoutAnNvlink) {
  const Topology topology = make_preset_topology("dgx1-v100");
  Router router(topology);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const Route route = router.route(a, b);
      const bool direct = link_between(topology, a, b) > 0;
      EXPECT_EQ(route.hops(), direct ? 1 : 2) << a << " -> " << b;
      for (DirectedLinkId link : route.links)  // never over PCIe inside a node
        EXPECT_EQ(topology.node(topology.directed_link(link).to).kind, NodeKind::endpoint) << a << " -> " << b;
    }
  const Route relayed = router.route(0, 5);
  EXPECT_EQ(path_names(topology, relayed), (std::vector<std::string>{"node0.gpu0", "node0.gpu1", "node0.gpu5"}));
  EXPECT_DOUBLE_EQ(relayed.bottleneck_bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(relayed.latency, 1e-6);
  // Two nodes: the NIC under each PCIe switch (4 rails) joins its rail's leaf.
  const Topology two = make_preset_topology("dgx1-v100,nodes:2");
  EXPECT_EQ(two.num_endpoints(), 16);
  EXPECT_EQ(two.num_switches(), 2 * 6 + 4 + 1);
  EXPECT_EQ(two.num_links(), 2 * 29 + 2 * 4 + 4);
  Router two_router(two);
  const Route across = two_router.route(0, 9);
  EXPECT_EQ(path_names(two, across), (std::vector<std::string>{"node0.gpu0", "node0.pcie-switch0", "unit0.rail0.leaf",
                                                               "node1.pcie-switch0", "node1.gpu1"}));
  EXPECT_DOUBLE_EQ(across.bottleneck_bandwidth, 12.5e9);
  EXPECT_TRUE(rank_symmetry_holds(two));
  EXPECT_EQ(ranks_per_node(topology), 4);  // one node: the quad
  EXPECT_EQ(ranks_per_node(two), 8);       // nodes: the node
}

TEST(TopologyGpuPresets, PcieBoxWithPeerToPeerCrossesSwitchesOrTheHostBridge) {
  const Topology topology = make_preset_topology("pcie-box");
  EXPECT_EQ(topology.num_endpoints(), 8);
  EXPECT_EQ(topology.num_switches(), 3);
  EXPECT_EQ(topology.num_links(), 10);
  EXPECT_TRUE(rank_symmetry_holds(topology));
  Router router(topology);
  const Route near = router.route(0, 3);
  EXPECT_EQ(path_names(topology, near), (std::vector<std::string>{"node0.gpu0", "node0.pcie-switch0", "node0.gpu3"}));
  EXPECT_DOUBLE_EQ(near.bottleneck_bandwidth, 31.5e9);  // PCIe 4.0 x16
  EXPECT_EQ(router.route(1, 6).hops(), 4);              // over the host bridge
  EXPECT_DOUBLE_EQ(Router(make_preset_topology("pcie-box,gen=3")).route(0, 1).bottleneck_bandwidth, 15.75e9);
  EXPECT_DOUBLE_EQ(Router(make_preset_topology("pcie-box,uplink_bw=10e9")).route(1, 6).bottleneck_bandwidth, 10e9);
  const Topology two = make_preset_topology("pcie-box,switches=4,gpus_per_switch=2,nodes=2");
  EXPECT_EQ(two.num_switches(), 2 * 5 + 4 + 1);
  EXPECT_TRUE(rank_symmetry_holds(two));
  EXPECT_EQ(ranks_per_node(two), 8);
  EXPECT_EQ(path_names(two, Router(two).route(2, 11)),
            (std::vector<std::string>{"node0.gpu2", "node0.pcie-switch1", "unit0.rail1.leaf", "node1.pcie-switch1",
                                      "node1.gpu3"}));
}

TEST(TopologyGpuPresets, PcieBoxWithoutPeerToPeerStagesEveryTransferInHostMemory) {
  const Topology topology = make_preset_topology("pcie-box,p2p=off");
  EXPECT_EQ(topology.num_switches(), 1);
  EXPECT_EQ(topology.num_links(), 8);
  EXPECT_TRUE(rank_symmetry_holds(topology));
  Router router(topology);
  for (int b = 1; b < 8; ++b) {
    const Route route = router.route(0, b);
    ASSERT_EQ(route.hops(), 2) << b;
    ASSERT_EQ(route.limited_switches.size(), 1u);
    EXPECT_EQ(topology.node(route.limited_switches[0]).name, "node0.host-memory");
    EXPECT_DOUBLE_EQ(topology.node(route.limited_switches[0]).capacity, 204.8e9 / 2);
    EXPECT_DOUBLE_EQ(route.bottleneck_bandwidth, 31.5e9 / 4);  // a quarter of the switch's uplink
    EXPECT_DOUBLE_EQ(route.latency, 4 * 0.5e-6);              // up to memory and down: 4 PCIe links
  }
  EXPECT_DOUBLE_EQ(Router(make_preset_topology("pcie-box,p2p=off,switches=8,gpus_per_switch=1")).route(0, 1).bottleneck_bandwidth,
                   31.5e9);
  // Two nodes: the host's NICs (one per PCIe switch) as one link to one leaf.
  const Topology two = make_preset_topology("pcie-box,p2p=off,nodes=2,nic=ib200");
  EXPECT_EQ(two.num_switches(), 2 + 1 + 1);
  const Route across = Router(two).route(0, 8);
  EXPECT_EQ(across.hops(), 4);
  EXPECT_DOUBLE_EQ(two.directed_link(across.links[1]).bandwidth, 2 * 25e9);
  EXPECT_TRUE(rank_symmetry_holds(two));
}

TEST(TopologyGpuPresets, BadParametersAreNamed) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"dgx-a100,nic=ib300", "parameter nic='ib300' must be one of: ib100, ib200, ib400, roce100"},
      {"dgx-a100:8", "takes no size after ':'; set its parameters instead, e.g. dgx-a100,nodes=..."},
      {"dgx-a100,gpus=9", "parameter gpus='9' must be an integer in [1, 8]"},
      {"dgx-h100,nodes=0", "parameter nodes='0' must be an integer in [1, "},
      {"hgx-h100,nic_bw=-1", "parameter nic_bw='-1' must be a number of bytes/s"},
      {"dgx1-v100,nvlink_bw=0", "parameter nvlink_bw='0'"},
      {"dgx1-v100,gpus=4", "unknown parameter 'gpus'"},
      {"pcie-box,p2p=maybe", "parameter p2p='maybe' must be one of: on, off"},
      {"pcie-box,gen=7", "parameter gen='7' must be an integer in [3, 5]"},
      {"pcie-box,mem_bw=fast", "parameter mem_bw='fast'"},
      {"dgx-a100,nodes=200000", "the limits are"},
      {"dgx-a100,gpu_mem_bw=2e3", "gpu_mem_bw gives a gamma of 0.0015 s/B"},
  };
  test_support::expect_preset_errors(cases);
}

}  // namespace
}  // namespace ringlab
