// The rings NCCL's graph search (src/graph/search.cc) lays over a node whose GPUs are linked to
// each other directly (NVLink on the DGX-1's hybrid cube-mesh): every hop of a ring is a direct
// link between two ranks of the node, and the rings together stay within each link's bandwidth.
#pragma once

#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace ringlab {

struct NodeRings {
  // Local rank orders (0 .. G-1 within a node), each a cycle over direct links; empty when none
  // was found (then `note` says why, and NCCL's rings follow rank order).
  std::vector<std::vector<int>> rings;
  double ring_bandwidth = 0;  // bytes/s each ring takes on each of its hops
  int channels = 0;           // NCCL's channel count over them (0: none found)
  std::string note;
};

// The rings over each node's G ranks, as NCCL searches them. A node: the ranks joined by direct
// links (consecutive, G of them in every node, 2 <= G <= 16; else rank order with a note).
// for each ring bandwidth b (every direct link's bandwidth over 1 .. 4, fastest first), pack as
// many Hamiltonian cycles as the links carry (a link of bandwidth B takes floor(B / b) rings in
// each direction), backtracking over the cycles; keep the b that gives the most ring bandwidth
// (count x b), stopping once it reaches a GPU's whole direct bandwidth. Channels: the rings,
// doubled when b is at least 1.25 slowest links (ncclTopoDupChannels: 25 GB/s against NCCL's 20 a
// link), doubled again (connect.cc), at most 64. Every node must have the links of node 0.
NodeRings nvlink_rings(const Topology& topology);

}  // namespace ringlab
