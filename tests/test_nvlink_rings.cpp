// topology/nvlink_rings: NCCL's rings over a node's direct links (the DGX-1's NVLinks), and
// nccl_ring following them (--node-rings).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/verify.hpp"
#include "topology/nvlink_rings.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

// [from][to]: the bandwidth of the direct links between two ranks of node 0.
std::map<std::pair<int, int>, double> direct_links(const Topology& topology) {
  std::map<std::pair<int, int>, double> links;
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    const int from = topology.rank_of(link.from);
    const int to = topology.rank_of(link.to);
    if (from >= 0 && to >= 0) links[{from, to}] += link.bandwidth;
  }
  return links;
}

TEST(NvlinkRings, DgxOneUsesEveryNvlinkInBothDirections) {
  for (const std::string preset : {"dgx1-v100", "dgx1-v100,nodes:2"}) {
    const Topology topology = make_preset_topology(preset);
    const NodeRings found = nvlink_rings(topology);
    // 6 links of 25 GB/s a GPU: six rings of one link's bandwidth, no ncclTopoDupChannels (one
    // link's speed), doubled by connect.cc: 12 channels.
    ASSERT_EQ(found.rings.size(), 6U) << preset << ": " << found.note;
    EXPECT_DOUBLE_EQ(found.ring_bandwidth, 25e9) << preset;
    EXPECT_EQ(found.channels, 12) << preset;
    const auto links = direct_links(topology);
    std::map<std::pair<int, int>, double> load;
    for (const std::vector<int>& ring : found.rings) {
      ASSERT_EQ(std::set<int>(ring.begin(), ring.end()).size(), 8U);
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const std::pair<int, int> hop{ring[i], ring[(i + 1) % ring.size()]};
        ASSERT_TRUE(links.contains(hop)) << preset << ": hop " << hop.first << " -> " << hop.second << " has no NVLink";
        load[hop] += found.ring_bandwidth;
      }
    }
    EXPECT_EQ(load.size(), 32U) << preset << ": every NVLink pair, both directions";
    for (const auto& [hop, bytes_per_second] : load) EXPECT_DOUBLE_EQ(bytes_per_second, links.at(hop)) << preset;
  }
}

TEST(NvlinkRings, RankOrderWithoutDirectLinks) {
  for (const std::string preset : {"dgx-a100", "pcie-box,switches=2,gpus_per_switch=2,p2p=on"}) {
    const NodeRings found = nvlink_rings(make_preset_topology(preset));
    EXPECT_TRUE(found.rings.empty()) << preset;
    EXPECT_EQ(found.channels, 0) << preset;
    EXPECT_NE(found.note.find("rank order"), std::string::npos) << preset;
  }
  // A ring of 6 direct links: the ring itself, one way and the other.
  const NodeRings ring = nvlink_rings(make_preset_topology("ring:6"));
  ASSERT_EQ(ring.rings.size(), 2U) << ring.note;
  EXPECT_EQ(ring.rings[0], (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ring.rings[1], (std::vector<int>{0, 5, 4, 3, 2, 1}));
}

TEST(NvlinkRings, NcclRingChannelsFollowTheNodeRings) {
  AlgorithmOptions options;
  options.channels = 3;
  options.node_rings = {{0, 3, 2, 1, 5, 6, 7, 4}, {0, 1, 3, 7, 5, 4, 6, 2}};
  const Schedule schedule = make_schedule("nccl_ring", Collective::allreduce, 16, options);
  EXPECT_TRUE(verify(schedule).ok());
  // Step 0: channel c's rank at position p sends to the next position: inside node 0, channel 0
  // and 2 take ring 0 (rotated by c), channel 1 ring 1; the last position crosses to node 1.
  std::set<std::pair<int, int>> sends;
  for (int rank = 0; rank < 8; ++rank) {
    const RankProgram program = schedule.program(rank);  // by value: keep it while its steps are read
    for (const Op& op : program.steps.front())
      if (op.kind == OpKind::send) sends.insert({rank, op.peer});
  }
  std::set<std::pair<int, int>> expected;
  for (int channel = 0; channel < 3; ++channel) {
    const std::vector<int>& ring = options.node_rings[static_cast<std::size_t>(channel % 2)];
    for (int position = 0; position < 7; ++position)
      expected.insert({ring[static_cast<std::size_t>((channel + position) % 8)], ring[static_cast<std::size_t>((channel + position + 1) % 8)]});
    expected.insert({ring[static_cast<std::size_t>((channel + 7) % 8)], 8 + ring[static_cast<std::size_t>(channel % 8)]});
  }
  EXPECT_EQ(sends, expected);
  options.node_rings = {{0, 1, 1}};
  EXPECT_THROW(make_schedule("nccl_ring", Collective::allreduce, 3, options), std::invalid_argument);
  options.node_rings = {{0, 1, 2}, {0, 1}};
  EXPECT_THROW(make_schedule("nccl_ring", Collective::allreduce, 3, options), std::invalid_argument);
  options.node_rings = {{0, 2, 1}};
  EXPECT_THROW(make_schedule("nccl_ring", Collective::allreduce, 4, options), std::invalid_argument);  // 3 does not divide 4
}

}  // namespace
}  // namespace ringlab
