// NCCL's protocols as topology costs (simulator/nccl_protocol.hpp): the figures of NCCL's
// src/graph/tuning.cc, applied per link, and the small/large-size choice they imply.
#include <gtest/gtest.h>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/nccl_protocol.hpp"
#include "simulator/predictor.hpp"
#include "topology/presets.hpp"

namespace ringlab::simulator {
namespace {

TEST(NcclProtocol, NamesAndChoices) {
  EXPECT_EQ(find_nccl_protocol("ll128").bandwidth_fraction, 0.92);
  EXPECT_EQ(find_nccl_protocol("simple").base_latency_seconds, 8.4e-6);
  EXPECT_THROW(find_nccl_protocol("fast"), std::invalid_argument);
  EXPECT_TRUE(protocols_for("none").empty());
  EXPECT_EQ(protocols_for("auto").size(), 3U);
  EXPECT_EQ(protocols_for("ll").front()->name, "ll");
  try {
    protocols_for("LL");
    ADD_FAILURE() << "LL accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("none, simple, ll, ll128, auto"), std::string::npos) << error.what();
  }
}

TEST(NcclProtocol, ScalesEveryLinkAndAddsAHopWhereALinkLeavesARank) {
  // Two nodes of 4: a GPU's NVLink to its node's NVSwitch pays the NVLink hop, its NIC link to
  // a leaf reaching both nodes the network hop; links between switches only the bandwidth share.
  const Topology topology = make_preset_topology("nvswitch:4,nodes:2");
  const NcclProtocol& ll = find_nccl_protocol("ll");
  const Topology priced = with_nccl_protocol(topology, ll);
  int intra = 0;
  int inter = 0;
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& before = topology.directed_link(id);
    const DirectedLink& after = priced.directed_link(id);
    EXPECT_DOUBLE_EQ(after.bandwidth, before.bandwidth * 0.5);
    const double added = after.latency - before.latency;
    if (topology.node(before.from).kind != NodeKind::endpoint) {
      EXPECT_DOUBLE_EQ(added, 0);
    } else if (topology.node(before.to).name.find("nvswitch") != std::string::npos) {
      EXPECT_NEAR(added, 0.6e-6, 1e-15);
      ++intra;
    } else {
      EXPECT_NEAR(added, 2.7e-6, 1e-15);
      ++inter;
    }
  }
  EXPECT_EQ(intra, 8);
  EXPECT_EQ(inter, 8);
}

TEST(NcclProtocol, LowLatencyWinsSmallMessagesAndSimpleLargeOnes) {
  // NCCL's ring on one 8-GPU node, closed form: LL (0.6 us a hop) beats Simple (3.4 us) at 8 KiB;
  // at 1 GiB LL's halved bandwidth loses.
  const Topology topology = make_preset_topology("nvswitch:8");
  const Schedule ring = make_schedule("nccl_ring", Collective::allreduce, 8, {0, 1, 0, "ring", 2, 1});
  const auto seconds = [&](std::string_view protocol, std::int64_t count) {
    const NcclProtocol& chosen = find_nccl_protocol(protocol);
    const Topology priced = with_nccl_protocol(topology, chosen);
    const Predictor model = make_model("closed-form", priced, 1e-11);
    return model.seconds(ring, count, DataType::float32, ReduceOp::sum, 0, Placement::out_of_place) +
           chosen.base_latency_seconds;
  };
  EXPECT_LT(seconds("ll", 2048), seconds("simple", 2048));
  EXPECT_LT(seconds("ll", 2048), seconds("ll128", 2048));
  EXPECT_LT(seconds("simple", std::int64_t{1} << 28), seconds("ll", std::int64_t{1} << 28));
  EXPECT_LT(seconds("simple", std::int64_t{1} << 28), seconds("ll128", std::int64_t{1} << 28));
}

}  // namespace
}  // namespace ringlab::simulator
