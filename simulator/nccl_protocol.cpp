#include "simulator/nccl_protocol.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "topology/rank_groups.hpp"

namespace ringlab::simulator {

namespace {

constexpr double us = 1e-6;

// src/graph/tuning.cc (NCCL, ring column): baseLatencies, hwLatencies (NVLINK, NET), and the ring's
// busBw refinements (LL x0.5, LL128 x0.92, Simple whole).
constexpr NcclProtocol protocol_table[] = {
    {"simple", 1.0, 8.4 * us, 3.4 * us, 14.0 * us},
    {"ll", 0.5, 6.6 * us, 0.6 * us, 2.7 * us},
    {"ll128", 0.92, 14.0 * us, 1.9 * us, 4.0 * us},
};

}  // namespace

std::span<const NcclProtocol> nccl_protocols() { return protocol_table; }

const NcclProtocol& find_nccl_protocol(std::string_view name) {
  for (const NcclProtocol& protocol : protocol_table)
    if (protocol.name == name) return protocol;
  throw std::invalid_argument(fmt::format("unknown protocol '{}'; valid protocols: none, simple, ll, ll128, auto", name));
}

std::vector<const NcclProtocol*> protocols_for(std::string_view choice) {
  std::vector<const NcclProtocol*> chosen;
  if (choice == "none") return chosen;
  if (choice == "auto") {
    for (const NcclProtocol& protocol : protocol_table) chosen.push_back(&protocol);
    return chosen;
  }
  chosen.push_back(&find_nccl_protocol(choice));
  return chosen;
}

Topology with_nccl_protocol(const Topology& topology, const NcclProtocol& protocol) {
  if (!topology.footprint_curves().empty())
    throw std::invalid_argument(fmt::format("topology '{}' has footprint curves, whose bandwidths would replace the "
                                            "protocol's; use --protocol none with it",
                                            topology.name()));
  const int per_node = ranks_per_node(topology) > 0 ? ranks_per_node(topology) : topology.num_endpoints();
  const auto node_of = [&](NodeId id) { return topology.rank_of(id) / per_node; };
  // Per switch, the one node whose ranks it reaches (-1: none yet, -2: several).
  std::vector<int> switch_node(static_cast<std::size_t>(topology.num_nodes()), -1);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    if (topology.node(link.from).kind != NodeKind::endpoint || topology.node(link.to).kind == NodeKind::endpoint) continue;
    int& node = switch_node[static_cast<std::size_t>(link.to)];
    node = node == -1 || node == node_of(link.from) ? node_of(link.from) : -2;
  }
  Topology priced = topology;
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    double hop = 0;
    if (topology.node(link.from).kind == NodeKind::endpoint) {
      const bool to_rank = topology.node(link.to).kind == NodeKind::endpoint;
      const bool leaves = to_rank ? node_of(link.to) != node_of(link.from)
                                  : switch_node[static_cast<std::size_t>(link.to)] != node_of(link.from);
      hop = leaves ? protocol.inter_hop_seconds : protocol.intra_hop_seconds;
    }
    priced.adjust_link(id, protocol.bandwidth_fraction, hop);
  }
  return priced;
}

}  // namespace ringlab::simulator
