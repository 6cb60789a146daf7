#include "routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace ringlab {

namespace {

struct PathCost {
  int hops = 0;
  double latency = 0;
  auto operator<=>(const PathCost&) const = default;
};

}  // namespace

Router::Router(const Topology& topology, std::size_t cache_entries)
    : topology_(topology),
      max_trees_(std::max<std::size_t>(1, cache_entries / std::max<std::size_t>(1, topology.num_nodes()))) {
  const auto nodes = static_cast<std::size_t>(topology.num_nodes());
  adjacency_start_.assign(nodes + 1, 0);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    ++adjacency_start_[static_cast<std::size_t>(topology.directed_link(id).from) + 1];
  for (std::size_t node = 0; node < nodes; ++node) adjacency_start_[node + 1] += adjacency_start_[node];
  adjacency_.resize(static_cast<std::size_t>(topology.num_directed_links()));
  std::vector<std::size_t> next(adjacency_start_.begin(), adjacency_start_.end() - 1);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    adjacency_[next[static_cast<std::size_t>(topology.directed_link(id).from)]++] = id;
  for (std::size_t node = 0; node < nodes; ++node)
    std::sort(adjacency_.begin() + static_cast<std::ptrdiff_t>(adjacency_start_[node]),
              adjacency_.begin() + static_cast<std::ptrdiff_t>(adjacency_start_[node + 1]),
              [&](DirectedLinkId x, DirectedLinkId y) {
                return std::pair(topology.directed_link(x).to, x) < std::pair(topology.directed_link(y).to, y);
              });
}

const std::vector<DirectedLinkId>& Router::tree_from(NodeId source) {
  if (auto found = trees_.find(source); found != trees_.end()) return found->second;
  if (trees_.size() >= max_trees_) {
    trees_.erase(cached_sources_.front());
    cached_sources_.pop_front();
  }
  const auto nodes = static_cast<std::size_t>(topology_.num_nodes());
  std::vector<DirectedLinkId> entering(nodes, -1);
  std::vector<PathCost> cost(nodes, PathCost{topology_.num_nodes() + 1, 0});
  std::vector<bool> done(nodes, false);
  using QueueEntry = std::tuple<int, double, NodeId>;  // hops, latency, node: a total order
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, std::greater<>> queue;
  cost[static_cast<std::size_t>(source)] = {0, 0};
  queue.emplace(0, 0.0, source);
  while (!queue.empty()) {
    const NodeId node = std::get<2>(queue.top());
    queue.pop();
    if (done[static_cast<std::size_t>(node)]) continue;
    done[static_cast<std::size_t>(node)] = true;
    if (node != source && topology_.rank_of(node) >= 0 && !topology_.endpoints_forward()) continue;
    const PathCost here = cost[static_cast<std::size_t>(node)];
    for (std::size_t i = adjacency_start_[static_cast<std::size_t>(node)];
         i < adjacency_start_[static_cast<std::size_t>(node) + 1]; ++i) {
      const DirectedLink& link = topology_.directed_link(adjacency_[i]);
      const auto next = static_cast<std::size_t>(link.to);
      const PathCost candidate{here.hops + 1, here.latency + link.latency};
      // Strictly better only: an equal offer comes from a node settled later, and the first stands.
      if (candidate < cost[next]) {
        cost[next] = candidate;
        entering[next] = adjacency_[i];
        queue.emplace(candidate.hops, candidate.latency, link.to);
      }
    }
  }
  cached_sources_.push_back(source);
  return trees_.emplace(source, std::move(entering)).first->second;
}

Route Router::route_between_nodes(NodeId source, NodeId destination) {
  if (source < 0 || source >= topology_.num_nodes() || destination < 0 || destination >= topology_.num_nodes())
    throw std::out_of_range(
        fmt::format("route {} -> {}: node ids must lie in [0, {})", source, destination, topology_.num_nodes()));
  Route route;
  route.source = source;
  route.destination = destination;
  if (source == destination) return route;
  const std::vector<DirectedLinkId>& entering = tree_from(source);
  for (NodeId node = destination; node != source;) {
    const DirectedLinkId link = entering[static_cast<std::size_t>(node)];
    if (link < 0)
      throw std::invalid_argument(fmt::format("topology '{}': no route from node {} ('{}') to node {} ('{}')",
                                              topology_.name(), source, topology_.node(source).name, destination,
                                              topology_.node(destination).name));
    route.links.push_back(link);
    node = topology_.directed_link(link).from;
  }
  std::reverse(route.links.begin(), route.links.end());
  for (std::size_t i = 0; i < route.links.size(); ++i) {
    const DirectedLink& link = topology_.directed_link(route.links[i]);
    route.latency += link.latency;
    route.bottleneck_bandwidth = std::min(route.bottleneck_bandwidth, link.bandwidth);
    const Node& next = topology_.node(link.to);
    if (i + 1 < route.links.size() && next.capacity < unlimited_capacity) {
      route.limited_switches.push_back(link.to);
      route.bottleneck_bandwidth = std::min(route.bottleneck_bandwidth, next.capacity);
    }
  }
  return route;
}

Route Router::route(int source_rank, int destination_rank) {
  const int endpoints = topology_.num_endpoints();
  if (source_rank < 0 || source_rank >= endpoints || destination_rank < 0 || destination_rank >= endpoints)
    throw std::out_of_range(fmt::format("route {} -> {}: topology '{}' has ranks 0..{}", source_rank, destination_rank,
                                        topology_.name(), endpoints - 1));
  return route_between_nodes(topology_.endpoint_node(source_rank), topology_.endpoint_node(destination_rank));
}

}  // namespace ringlab
