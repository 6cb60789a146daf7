// NCCL's protocols (LL, LL128, Simple) as costs on a topology: the share of each link's bandwidth
// the payload gets, a latency per hop (one added to every link leaving a rank), and a latency once
// per call. The figures are NCCL's own cost model's (src/graph/tuning.cc, ring column).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace ringlab::simulator {

struct NcclProtocol {
  std::string_view name;
  double bandwidth_fraction = 1;     // of every link's bandwidth
  double base_latency_seconds = 0;   // once a call
  double intra_hop_seconds = 0;      // a link from a rank inside its node (NCCL's NVLink figure)
  double inter_hop_seconds = 0;      // a link from a rank out of its node (NCCL's NET figure)
};

// simple, ll, ll128.
std::span<const NcclProtocol> nccl_protocols();
// Throws std::invalid_argument listing the names.
const NcclProtocol& find_nccl_protocol(std::string_view name);

// `topology` priced for `protocol`: every link's bandwidth times its fraction, and each link that
// leaves a rank slower by a hop: the inter-node hop when the link reaches a rank of another node
// or a switch attached to ranks of several nodes (nodes of ranks_per_node consecutive ranks; 0:
// one node), else the intra-node hop. Throws std::invalid_argument for a topology with footprint
// curves (their bandwidths would replace the scaled ones).
Topology with_nccl_protocol(const Topology& topology, const NcclProtocol& protocol);

// The protocols `simulate --protocol` prices for `choice`: none (no protocol costs: empty), one
// by name, or all three (auto, the cheapest per size as NCCL picks). Throws listing the choices.
std::vector<const NcclProtocol*> protocols_for(std::string_view choice);

}  // namespace ringlab::simulator
