#include "topology/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace ringlab {

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

template <typename Relax>
void Router::search_from(NodeId root, Relax&& relax) const {
  std::vector<bool> settled(static_cast<std::size_t>(topology_.num_nodes()), false);
  using QueueEntry = std::tuple<std::int32_t, double, NodeId>;  // hops, latency, node: a total order
  std::priority_queue<QueueEntry, std::vector<QueueEntry>, std::greater<>> queue;
  queue.emplace(0, 0.0, root);
  while (!queue.empty()) {
    const auto [hops, latency, node] = queue.top();
    queue.pop();
    if (settled[static_cast<std::size_t>(node)]) continue;
    settled[static_cast<std::size_t>(node)] = true;
    if (node != root && topology_.rank_of(node) >= 0 && !topology_.endpoints_forward()) continue;
    for (std::size_t i = adjacency_start_[static_cast<std::size_t>(node)];
         i < adjacency_start_[static_cast<std::size_t>(node) + 1]; ++i) {
      const DirectedLink& link = topology_.directed_link(adjacency_[i]);
      const std::pair offer(hops + 1, latency + link.latency);
      if (relax(node, adjacency_[i], link, offer)) queue.emplace(offer.first, offer.second, link.to);
    }
  }
}

const Router::Tree& Router::tree_from(NodeId root) {
  if (auto found = trees_.find(root); found != trees_.end()) return found->second;
  if (trees_.size() >= max_trees_) {
    trees_.erase(cached_roots_.front());
    cached_roots_.pop_front();
  }
  Tree tree(static_cast<std::size_t>(topology_.num_nodes()));
  tree[static_cast<std::size_t>(root)] = {-1, 0, 0.0};
  search_from(root, [&](NodeId, DirectedLinkId id, const DirectedLink& link, std::pair<std::int32_t, double> offer) {
    TreeEntry& next = tree[static_cast<std::size_t>(link.to)];
    // Strictly better only: an equal offer comes from a node settled later, and the first stands.
    if (next.hops >= 0 && !(offer < std::pair(next.hops, next.latency))) return false;
    next = {id, offer.first, offer.second};
    return true;
  });
  cached_roots_.push_back(root);
  return trees_.emplace(root, std::move(tree)).first->second;
}

std::vector<Router::CostFromRoot> Router::costs_from(NodeId root) const {
  std::vector<CostFromRoot> costs(static_cast<std::size_t>(topology_.num_nodes()));
  std::vector<double> widest(costs.size(), 0.0);  // the largest bottleneck among tied routes
  costs[static_cast<std::size_t>(root)] = {0, 0.0, unlimited_capacity, true, true};
  widest[static_cast<std::size_t>(root)] = unlimited_capacity;
  search_from(root, [&](NodeId node, DirectedLinkId, const DirectedLink& link, std::pair<std::int32_t, double> offer) {
    const CostFromRoot& here = costs[static_cast<std::size_t>(node)];
    // Leaving an interior switch: its capacity limits the route too.
    const double capacity = node != root ? topology_.node(node).capacity : unlimited_capacity;
    const double narrow = std::min({here.bottleneck, capacity, link.bandwidth});
    const double wide = std::min({widest[static_cast<std::size_t>(node)], capacity, link.bandwidth});
    CostFromRoot& next = costs[static_cast<std::size_t>(link.to)];
    if (next.hops < 0 || offer < std::pair(next.hops, next.latency)) {
      next = {offer.first, offer.second, narrow, narrow == wide, here.path_unique};
      widest[static_cast<std::size_t>(link.to)] = wide;
      return true;
    }
    if (offer == std::pair(next.hops, next.latency)) {  // a tie the node ids decide
      next.bottleneck = std::min(next.bottleneck, narrow);
      double& next_widest = widest[static_cast<std::size_t>(link.to)];
      next_widest = std::max(next_widest, wide);
      next.bottleneck_unique = next.bottleneck == next_widest;
      next.path_unique = false;
    }
    return false;
  });
  return costs;
}

void Router::append_tree_path(const Tree& tree, NodeId root, NodeId destination, Route& route) const {
  const std::size_t start = route.links.size();
  for (NodeId node = destination; node != root;) {
    const DirectedLinkId link = tree[static_cast<std::size_t>(node)].entering;
    if (link < 0)
      throw std::invalid_argument(fmt::format("topology '{}': no route from node {} ('{}') to node {} ('{}')",
                                              topology_.name(), route.source, topology_.node(route.source).name,
                                              destination, topology_.node(destination).name));
    route.links.push_back(link);
    node = topology_.directed_link(link).from;
  }
  std::reverse(route.links.begin() + static_cast<std::ptrdiff_t>(start), route.links.end());
}

Route Router::route_between_nodes(NodeId source, NodeId destination) {
  if (source < 0 || source >= topology_.num_nodes() || destination < 0 || destination >= topology_.num_nodes())
    throw std::out_of_range(
        fmt::format("route {} -> {}: node ids must lie in [0, {})", source, destination, topology_.num_nodes()));
  Route route;
  route.source = source;
  route.destination = destination;
  if (source == destination) return route;
  // A direct link is the only one-hop route (links never run in parallel): no tree needed, which
  // keeps fully-connected topologies cheap.
  const auto neighbours_begin = adjacency_.begin() + static_cast<std::ptrdiff_t>(adjacency_start_[static_cast<std::size_t>(source)]);
  const auto neighbours_end = adjacency_.begin() + static_cast<std::ptrdiff_t>(adjacency_start_[static_cast<std::size_t>(source) + 1]);
  const auto direct = std::lower_bound(neighbours_begin, neighbours_end, destination, [&](DirectedLinkId link, NodeId node) {
    return topology_.directed_link(link).to < node;
  });
  if (direct != neighbours_end && topology_.directed_link(*direct).to == destination) {
    route.links.push_back(*direct);
  } else if (topology_.rank_of(source) < 0 || topology_.endpoints_forward()) {
    append_tree_path(tree_from(source), source, destination, route);
  } else {
    // A non-relaying endpoint: pick the first hop whose tree reaches the destination cheapest.
    DirectedLinkId best_first = -1;
    std::pair<std::int32_t, double> best_cost;
    for (std::size_t i = adjacency_start_[static_cast<std::size_t>(source)];
         i < adjacency_start_[static_cast<std::size_t>(source) + 1]; ++i) {
      const DirectedLink& first = topology_.directed_link(adjacency_[i]);
      std::pair<std::int32_t, double> cost(1, first.latency);
      if (first.to != destination) {
        if (topology_.rank_of(first.to) >= 0) continue;  // another endpoint relays nothing
        const TreeEntry& rest = tree_from(first.to)[static_cast<std::size_t>(destination)];
        if (rest.hops < 0) continue;
        cost = {1 + rest.hops, first.latency + rest.latency};
      }
      if (best_first < 0 || cost < best_cost) {
        best_first = adjacency_[i];
        best_cost = cost;
      }
    }
    if (best_first < 0)
      throw std::invalid_argument(fmt::format("topology '{}': no route from node {} ('{}') to node {} ('{}')",
                                              topology_.name(), source, topology_.node(source).name, destination,
                                              topology_.node(destination).name));
    route.links.push_back(best_first);
    const NodeId hop = topology_.directed_link(best_first).to;
    if (hop != destination) append_tree_path(tree_from(hop), hop, destination, route);
  }
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
