// The resources (link directions, then limited switches) each route crosses, cached for the
// flow-level model. Resource ids: directed link l is resource l; the k-th switch with a finite
// capacity is resource num_directed_links + k.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

struct FlowRoute {
  double latency_seconds = 0;
  std::int32_t first = 0;   // into the resource pool
  std::int32_t length = 0;
};

// Keeps a reference to the topology, which must outlive it. Not thread-safe.
class FlowRoutes {
 public:
  explicit FlowRoutes(const Topology& topology);

  // Ranks are endpoint indices; throws std::out_of_range for a rank the topology lacks. The
  // returned route stays valid until release_cache().
  FlowRoute between(int source_rank, int destination_rank);
  std::span<const std::int32_t> resources(const FlowRoute& route) const {
    return {pool_.data() + route.first, static_cast<std::size_t>(route.length)};
  }
  // Drops the cached routes when they hold more than the budget (call between predictions).
  void release_cache(std::size_t budget_entries = std::size_t{1} << 24);

  int num_resources() const { return static_cast<int>(capacities_.size()); }
  double capacity(std::int32_t resource) const { return capacities_[static_cast<std::size_t>(resource)]; }
  std::span<const double> capacities() const { return capacities_; }  // by resource
  bool is_switch(std::int32_t resource) const { return resource >= topology_.num_directed_links(); }
  // The switch node of a switch resource.
  NodeId switch_node(std::int32_t resource) const {
    return limited_switches_[static_cast<std::size_t>(resource - topology_.num_directed_links())];
  }
  // The resource of a limited switch, -1 for any other node.
  std::int32_t resource_of_switch(NodeId node) const { return switch_resource_[static_cast<std::size_t>(node)]; }
  const Topology& topology() const { return topology_; }

 private:
  FlowRoute from_table(int source_rank, int destination_rank);

  const Topology& topology_;
  Router router_;
  std::vector<double> capacities_;
  std::vector<NodeId> limited_switches_;
  std::vector<std::int32_t> switch_resource_;  // by node id; -1 for nodes that are not limited switches
  std::unordered_map<std::uint64_t, FlowRoute> routes_;
  std::vector<std::pair<int, FlowRoute>> last_of_source_;  // by source rank: the last destination asked for, its route
  std::vector<std::int32_t> pool_;
};

}  // namespace ringlab::simulator
