// Deterministic shortest-path routes between endpoints of a Topology.
//
// A route minimises the hop count, then the summed latency. Ties are broken the same way every run:
// nodes are settled in (hops, latency, node id) order and a node keeps the first offer it gets,
// so with equal latencies it is entered from its lowest-numbered neighbour on a shortest path.
// Interior nodes are switches unless the topology's endpoints forward. Routes are computed one source at a time (Dijkstra over the
// pair (hops, latency), O(E log V)) and the per-source trees are cached up to a memory budget, so
// a switch:4096 topology answers any route without an all-pairs table.
#pragma once

#include <cstddef>
#include <deque>
#include <unordered_map>
#include <vector>

#include "topology.hpp"

namespace ringlab {

struct Route {
  NodeId source = 0;
  NodeId destination = 0;
  std::vector<DirectedLinkId> links;     // in order from source to destination
  std::vector<NodeId> limited_switches;  // interior switches with a finite capacity, in order
  double bottleneck_bandwidth = unlimited_capacity;  // min over links and limited switches; unlimited when empty
  double latency = 0;                                // sum of the links' latencies, seconds
  int hops() const { return static_cast<int>(links.size()); }
};

// Holds a reference to the topology, which must outlive it and stay unchanged. Not thread-safe
// (the cache); use one Router per thread.
class Router {
 public:
  // cache_entries bounds the cached trees: at most cache_entries / num_nodes trees (at least one).
  explicit Router(const Topology& topology, std::size_t cache_entries = std::size_t{1} << 24);

  // Between ranks (endpoint indices). Throws std::out_of_range for a bad rank and
  // std::invalid_argument when no route exists (a topology that passed validate() has them all).
  Route route(int source_rank, int destination_rank);
  Route route_between_nodes(NodeId source, NodeId destination);

  const Topology& topology() const { return topology_; }

 private:
  const std::vector<DirectedLinkId>& tree_from(NodeId source);

  const Topology& topology_;
  std::size_t max_trees_;
  // Outgoing directed links of each node, ordered by neighbour id (compressed rows).
  std::vector<std::size_t> adjacency_start_;
  std::vector<DirectedLinkId> adjacency_;
  // Per cached source: the directed link entering each node on its route, -1 where none.
  std::unordered_map<NodeId, std::vector<DirectedLinkId>> trees_;
  std::deque<NodeId> cached_sources_;
};

}  // namespace ringlab
