#include "topology/rank_groups.hpp"

#include <algorithm>
#include <vector>

namespace ringlab {

namespace {

// For each switch: the endpoints one link away (a switch-to-endpoint link in either direction).
std::vector<std::vector<int>> endpoints_of_switches(const Topology& topology) {
  std::vector<std::vector<int>> attached(static_cast<std::size_t>(topology.num_nodes()));
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); id += 2) {
    const DirectedLink& link = topology.directed_link(id);
    const bool from_endpoint = topology.node(link.from).kind == NodeKind::endpoint;
    const bool to_endpoint = topology.node(link.to).kind == NodeKind::endpoint;
    if (from_endpoint == to_endpoint) continue;
    const NodeId switch_node = from_endpoint ? link.to : link.from;
    const NodeId endpoint = from_endpoint ? link.from : link.to;
    attached[static_cast<std::size_t>(switch_node)].push_back(topology.rank_of(endpoint));
  }
  return attached;
}

}  // namespace

int ranks_per_node(const Topology& topology) {
  if (const auto& symmetry = topology.rank_symmetry(); symmetry && !symmetry->radices.empty())
    return symmetry->radices.size() == 1 ? topology.num_endpoints() : symmetry->radices.back();
  int best = 0;
  for (std::vector<int>& ranks : endpoints_of_switches(topology)) {
    if (ranks.empty() || static_cast<int>(ranks.size()) == topology.num_endpoints()) continue;
    std::sort(ranks.begin(), ranks.end());
    int run = 0;
    while (run < static_cast<int>(ranks.size()) && ranks[static_cast<std::size_t>(run)] == run) ++run;
    best = std::max(best, run);
  }
  return best;
}

}  // namespace ringlab
