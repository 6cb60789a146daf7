#include "simulator/flow_routes.hpp"

namespace ringlab::simulator {

FlowRoutes::FlowRoutes(const Topology& topology)
    : topology_(topology),
      router_(topology),
      switch_resource_(static_cast<std::size_t>(topology.num_nodes()), -1),
      last_of_source_(static_cast<std::size_t>(topology.num_endpoints()), {-1, FlowRoute{}}) {
  capacities_.reserve(static_cast<std::size_t>(topology.num_directed_links()));
  for (DirectedLinkId link = 0; link < topology.num_directed_links(); ++link)
    capacities_.push_back(topology.directed_link(link).bandwidth);
  for (NodeId node = 0; node < topology.num_nodes(); ++node) {
    const Node& described = topology.node(node);
    if (described.kind != NodeKind::switch_node || described.capacity == unlimited_capacity) continue;
    switch_resource_[static_cast<std::size_t>(node)] = static_cast<std::int32_t>(capacities_.size());
    capacities_.push_back(described.capacity);
    limited_switches_.push_back(node);
  }
}

FlowRoute FlowRoutes::between(int source_rank, int destination_rank) {
  // A rank sends to the same peer step after step (ring): its last route first, then the table.
  const auto source = static_cast<std::size_t>(source_rank);
  if (source < last_of_source_.size() && last_of_source_[source].first == destination_rank)
    return last_of_source_[source].second;
  const FlowRoute route = from_table(source_rank, destination_rank);
  if (source < last_of_source_.size()) last_of_source_[source] = {destination_rank, route};
  return route;
}

FlowRoute FlowRoutes::from_table(int source_rank, int destination_rank) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(source_rank)) << 32) |
                            static_cast<std::uint32_t>(destination_rank);
  if (const auto found = routes_.find(key); found != routes_.end()) return found->second;
  const Route route = router_.route(source_rank, destination_rank);
  FlowRoute entry{route.latency, static_cast<std::int32_t>(pool_.size()), 0};
  pool_.insert(pool_.end(), route.links.begin(), route.links.end());
  for (NodeId node : route.limited_switches) pool_.push_back(switch_resource_[static_cast<std::size_t>(node)]);
  entry.length = static_cast<std::int32_t>(pool_.size()) - entry.first;
  routes_.emplace(key, entry);
  return entry;
}

void FlowRoutes::release_cache(std::size_t budget_entries) {
  if (pool_.size() <= budget_entries) return;
  routes_.clear();
  last_of_source_.assign(last_of_source_.size(), {-1, FlowRoute{}});
  pool_.clear();
  pool_.shrink_to_fit();
}

}  // namespace ringlab::simulator
