#include "simulator/flow_orbits.hpp"

#include <map>
#include <set>
#include <unordered_map>

#include "topology/routing.hpp"
#include "topology/symmetry.hpp"

namespace ringlab::simulator {

namespace {

// Whether every chunk range longer than one chunk stays unwrapped for every rank.
bool no_range_wraps(const Schedule& schedule) {
  for (const Step& step : schedule.programs.front().steps)
    for (const Op& op : step) {
      if (op.chunks.size() <= 1) continue;
      for (int rank = 0; rank < schedule.nranks; ++rank)
        if (schedule.resolve(op, rank).chunks.end > schedule.nchunks) return false;
    }
  return true;
}

// The resources a route crosses, as FlowRoutes numbers them.
std::vector<std::int32_t> resources_of(const Route& route, const FlowRoutes& routes) {
  std::vector<std::int32_t> resources(route.links.begin(), route.links.end());
  for (NodeId node : route.limited_switches) resources.push_back(routes.resource_of_switch(node));
  return resources;
}

// Whether the route of every pair a representative receives on, turned k times, is the route of
// the pair turned k times, for every k: so where it is the only shortest route (an automorphism
// keeps hops and latency), else where the router's choice among tied routes is checked turn by turn.
bool receive_routes_turn_with_ranks(const FlowRoutes& routes, const Schedule& schedule, const RankOrbits& orbits,
                                    const std::vector<std::int32_t>& image) {
  const Topology& topology = routes.topology();
  std::set<int> offsets;
  for (const Step& step : schedule.programs.front().steps)
    for (const Op& op : step)
      if (op.kind != OpKind::send) offsets.insert(op.peer);
  std::map<int, std::vector<int>> receivers_by_source;
  for (int representative = 0; representative < orbits.stride; ++representative)
    for (int offset : offsets)
      receivers_by_source[(representative + offset) % schedule.nranks].push_back(representative);
  Router router(topology);
  for (const auto& [source, receivers] : receivers_by_source) {
    const std::vector<Router::CostFromRoot> costs = router.costs_from(topology.endpoint_node(source));
    for (int receiver : receivers) {
      if (costs[static_cast<std::size_t>(topology.endpoint_node(receiver))].path_unique) continue;
      std::vector<std::int32_t> turned = resources_of(router.route(source, receiver), routes);
      for (int turns = 1; turns < orbits.size; ++turns) {
        for (std::int32_t& resource : turned) resource = image[static_cast<std::size_t>(resource)];
        const int shift = turns * orbits.stride;
        if (resources_of(router.route((source + shift) % schedule.nranks, (receiver + shift) % schedule.nranks), routes) !=
            turned)
          return false;
      }
    }
  }
  return true;
}

// The image of every resource under the turn of the leading digit.
std::vector<std::int32_t> turned_resources(const FlowRoutes& routes, const std::vector<NodeId>& turn) {
  const Topology& topology = routes.topology();
  const auto key = [](NodeId from, NodeId to) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) | static_cast<std::uint32_t>(to);
  };
  std::unordered_map<std::uint64_t, std::int32_t> link_between;
  link_between.reserve(static_cast<std::size_t>(topology.num_directed_links()));
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    link_between.emplace(key(topology.directed_link(id).from, topology.directed_link(id).to), id);
  std::vector<std::int32_t> image(static_cast<std::size_t>(routes.num_resources()));
  for (std::int32_t resource = 0; resource < routes.num_resources(); ++resource) {
    if (routes.is_switch(resource)) {
      image[static_cast<std::size_t>(resource)] =
          routes.resource_of_switch(turn[static_cast<std::size_t>(routes.switch_node(resource))]);
    } else {
      const DirectedLink& link = topology.directed_link(resource);
      image[static_cast<std::size_t>(resource)] =
          link_between.at(key(turn[static_cast<std::size_t>(link.from)], turn[static_cast<std::size_t>(link.to)]));
    }
  }
  return image;
}

}  // namespace

std::optional<RankOrbits> rank_orbits(const FlowRoutes& routes, const Schedule& schedule, std::int64_t count) {
  const Topology& topology = routes.topology();
  if (!schedule.circulant || schedule.nranks != topology.num_endpoints() || schedule.nchunks < 1 ||
      count % schedule.nchunks != 0 || topology.cpu_sharing() || topology.copy_cost_ratio().value_or(0) > 0)
    return std::nullopt;
  const std::optional<RankSymmetry>& symmetry = topology.rank_symmetry();
  if (!symmetry || symmetry->radices.empty() || symmetry->radices.front() < 2 || symmetry->turns.front().empty() ||
      !rank_symmetry_holds(topology))
    return std::nullopt;
  RankOrbits orbits;
  orbits.size = symmetry->radices.front();
  orbits.stride = schedule.nranks / orbits.size;
  if (!no_range_wraps(schedule)) return std::nullopt;
  const std::vector<std::int32_t> image = turned_resources(routes, symmetry->turns.front());
  if (!receive_routes_turn_with_ranks(routes, schedule, orbits, image)) return std::nullopt;
  const auto nresources = static_cast<std::size_t>(routes.num_resources());
  orbits.canonical.assign(nresources, -1);
  orbits.weight.assign(nresources, 0.0);
  std::vector<std::int32_t> members;
  for (std::size_t first = 0; first < nresources; ++first) {
    if (orbits.canonical[first] >= 0) continue;
    members.clear();
    for (auto resource = static_cast<std::int32_t>(first); orbits.canonical[static_cast<std::size_t>(resource)] < 0;
         resource = image[static_cast<std::size_t>(resource)]) {
      orbits.canonical[static_cast<std::size_t>(resource)] = static_cast<std::int32_t>(first);
      members.push_back(resource);
    }
    for (std::int32_t member : members)
      orbits.weight[static_cast<std::size_t>(member)] = static_cast<double>(orbits.size) / static_cast<double>(members.size());
  }
  return orbits;
}

}  // namespace ringlab::simulator
