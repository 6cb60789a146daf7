// Deterministic shortest-path routes between endpoints of a Topology.
//
// A route minimises the hop count, then the summed latency, and is the same every run:
// - From a node that may relay (a switch, or any node when endpoints forward), routes follow a
//   shortest-path tree: Dijkstra over (hops, latency) settles nodes in (hops, latency, node id)
//   order and a node keeps the first offer it gets, so with equal latencies it is entered from
//   its lowest-numbered neighbour on a shortest path.
// - From an endpoint that does not relay, the first hop is the neighbour with the cheapest
//   (hops, latency) to the destination, the lowest neighbour id on a tie, and the rest follows
//   that neighbour's tree. All endpoints under one switch thus share its tree: switch:4096 needs
//   one tree, not 4096.
// - A direct link between the two nodes is always the route (the only one with one hop).
// Interior nodes are switches unless the topology's endpoints forward. Trees (O(V) memory each,
// O(E log V) to build) are built on first use and cached up to a memory budget; there is no
// all-pairs table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "topology/topology.hpp"

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
  // cache_entries bounds the cached trees: at most cache_entries / num_nodes trees (at least one;
  // an entry is 16 bytes, so the default is 64 MiB).
  explicit Router(const Topology& topology, std::size_t cache_entries = std::size_t{1} << 22);

  // Between ranks (endpoint indices). Throws std::out_of_range for a bad rank and
  // std::invalid_argument when no route exists (a topology that passed validate() has them all).
  Route route(int source_rank, int destination_rank);
  Route route_between_nodes(NodeId source, NodeId destination);

  const Topology& topology() const { return topology_; }

  // What a route from `root` costs to every node, over the routes route_between_nodes takes from
  // a node that may relay (the root relays even when it is an endpoint that does not): the hops,
  // the latency summed from the root, and the bottleneck (links and interior limited switches,
  // not the root's capacity). Routes of equal (hops, latency) that node ids decide between may
  // differ in bottleneck: `bottleneck_unique` says whether they all agree. Not cached; O(E log V).
  struct CostFromRoot {
    std::int32_t hops = -1;  // -1: unreachable
    double latency = 0;
    double bottleneck = unlimited_capacity;
    bool bottleneck_unique = true;
    bool path_unique = true;  // no other route ties it in (hops, latency): an automorphism maps it to its image's route
  };
  std::vector<CostFromRoot> costs_from(NodeId root) const;

 private:
  struct TreeEntry {
    DirectedLinkId entering = -1;  // the link into this node on its route from the root; -1 for none
    std::int32_t hops = -1;        // -1: unreachable
    double latency = 0;
  };
  using Tree = std::vector<TreeEntry>;
  // The one search both use: nodes settled in (hops, latency, id) order from `root`, never through
  // an endpoint that does not relay (but the root); relax(node, link id, link, offered (hops,
  // latency) at link.to) for each link out of a settled node says whether link.to got a strictly
  // better offer and is queued.
  template <typename Relax>
  void search_from(NodeId root, Relax&& relax) const;
  const Tree& tree_from(NodeId root);
  void append_tree_path(const Tree& tree, NodeId root, NodeId destination, Route& route) const;

  const Topology& topology_;
  std::size_t max_trees_;
  // Outgoing directed links of each node, ordered by neighbour id (compressed rows).
  std::vector<std::size_t> adjacency_start_;
  std::vector<DirectedLinkId> adjacency_;
  std::unordered_map<NodeId, Tree> trees_;  // by root
  std::deque<NodeId> cached_roots_;          // oldest first, for eviction
};

}  // namespace ringlab
