// The preset topologies. Each computes its node and link counts first, so that reserve() refuses
// one past the limits before anything is allocated. Rank numbering is given per preset.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "topology/preset_arguments.hpp"

namespace ringlab::presets {

namespace {

constexpr std::int64_t max_count = max_topology_nodes;

// A direct network: endpoints only, they relay each other's traffic.
Topology direct_network(const PresetArguments& arguments, std::int64_t endpoints, std::int64_t links) {
  Topology topology(arguments.text());
  topology.reserve(endpoints, links);
  topology.set_endpoints_forward(true);
  for (std::int64_t rank = 0; rank < endpoints; ++rank) topology.add_endpoint(fmt::format("rank{}", rank));
  return topology;
}

// Links of a closed line of n nodes: n for n > 2, one for n = 2, none for n = 1.
std::int64_t cycle_links(std::int64_t n) { return n > 2 ? n : n - 1; }

}  // namespace

Topology fully_connected(const PresetArguments& arguments) {
  const std::int64_t n = arguments.size(1, max_count);
  const LinkDirection link{arguments.bandwidth("bw"), arguments.latency("lat")};
  Topology topology = direct_network(arguments, n, n * (n - 1) / 2);
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = a + 1; b < n; ++b) topology.add_link(static_cast<NodeId>(a), static_cast<NodeId>(b), link);
  return topology;
}

// Ranks 0..N-1, then the switch.
Topology single_switch(const PresetArguments& arguments) {
  const std::int64_t n = arguments.size(1, max_count);
  const LinkDirection link{arguments.bandwidth("bw"), arguments.latency("lat")};
  Topology topology(arguments.text());
  topology.reserve(n + 1, n);
  for (std::int64_t rank = 0; rank < n; ++rank) topology.add_endpoint(fmt::format("rank{}", rank));
  const NodeId hub = topology.add_switch("switch");
  for (NodeId rank = 0; rank < n; ++rank) topology.add_link(rank, hub, link);
  // Turning the ranks by one (the switch staying) maps the network onto itself.
  std::vector<NodeId> turn(static_cast<std::size_t>(n + 1), hub);
  for (std::int64_t i = 0; i < n; ++i) turn[static_cast<std::size_t>(i)] = static_cast<NodeId>((i + 1) % n);
  topology.set_rank_symmetry(RankSymmetry{{static_cast<int>(n)}, {std::move(turn)}});
  return topology;
}

// Rank i is linked to ranks i-1 and i+1 (mod N).
Topology ring(const PresetArguments& arguments) {
  const std::int64_t n = arguments.size(1, max_count);
  const LinkDirection link{arguments.bandwidth("bw"), arguments.latency("lat")};
  Topology topology = direct_network(arguments, n, cycle_links(n));
  for (std::int64_t i = 0; i < cycle_links(n); ++i)
    topology.add_link(static_cast<NodeId>(i), static_cast<NodeId>((i + 1) % n), link);
  // Turning the ring by one rank maps it onto itself.
  std::vector<NodeId> turn(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) turn[static_cast<std::size_t>(i)] = static_cast<NodeId>((i + 1) % n);
  topology.set_rank_symmetry(RankSymmetry{{static_cast<int>(n)}, {std::move(turn)}});
  return topology;
}

// Rank r * C + c sits at row r, column c; rows and columns close into rings.
Topology torus2d(const PresetArguments& arguments) {
  const auto [rows, columns] = arguments.grid_size(max_count);
  const LinkDirection link{arguments.bandwidth("bw"), arguments.latency("lat")};
  if (rows * columns > max_count)
    throw std::invalid_argument(fmt::format("topology preset '{}': {} endpoints; the limit is {}", arguments.text(),
                                            rows * columns, max_count));
  Topology topology =
      direct_network(arguments, rows * columns, rows * cycle_links(columns) + columns * cycle_links(rows));
  const auto at = [columns = columns](std::int64_t row, std::int64_t column) {
    return static_cast<NodeId>(row * columns + column);
  };
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t column = 0; column < cycle_links(columns); ++column)
      topology.add_link(at(row, column), at(row, (column + 1) % columns), link);
  for (std::int64_t column = 0; column < columns; ++column)
    for (std::int64_t row = 0; row < cycle_links(rows); ++row)
      topology.add_link(at(row, column), at((row + 1) % rows, column), link);
  // Moving every rank one row down, or one column right (with wrap-around), maps the torus onto itself.
  std::vector<NodeId> down(static_cast<std::size_t>(rows * columns));
  std::vector<NodeId> right(down.size());
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t column = 0; column < columns; ++column) {
      down[static_cast<std::size_t>(at(row, column))] = at((row + 1) % rows, column);
      right[static_cast<std::size_t>(at(row, column))] = at(row, (column + 1) % columns);
    }
  topology.set_rank_symmetry(RankSymmetry{{static_cast<int>(rows), static_cast<int>(columns)}, {std::move(down), std::move(right)}});
  return topology;
}

// GPU s * G + g is the g-th GPU under PCIe switch s; then the switches, then the host bridge.
Topology pcie_tree(const PresetArguments& arguments) {
  arguments.require_no_size();
  const std::int64_t switches = arguments.integer("switches", 1, 4096);
  const std::int64_t per_switch = arguments.integer("gpus_per_switch", 1, 4096);
  const double latency = arguments.latency("lat");
  const LinkDirection gpu_link{arguments.bandwidth("bw"), latency};
  const LinkDirection uplink{arguments.bandwidth("uplink_bw"), latency};
  Topology topology(arguments.text());
  topology.reserve(switches * per_switch + switches + 1, switches * per_switch + switches);
  for (std::int64_t gpu = 0; gpu < switches * per_switch; ++gpu) topology.add_endpoint(fmt::format("gpu{}", gpu));
  const auto first_switch = static_cast<NodeId>(switches * per_switch);
  for (std::int64_t s = 0; s < switches; ++s) topology.add_switch(fmt::format("pcie-switch{}", s));
  const NodeId bridge = topology.add_switch("host-bridge");
  for (std::int64_t gpu = 0; gpu < switches * per_switch; ++gpu)
    topology.add_link(static_cast<NodeId>(gpu), first_switch + static_cast<NodeId>(gpu / per_switch), gpu_link);
  for (NodeId s = 0; s < switches; ++s) topology.add_link(first_switch + s, bridge, uplink);
  return topology;
}

// Rank (g * routers + r) * ranks + i is rank i of router r of group g; then the routers, group by
// group. A group's routers are linked all to all. Group g's global ports m = 0 .. routers x global
// - 1 sit h to a router (router m / global); with G groups, t = floor(routers x global / (G - 1))
// ports per other group are used: port m = k (G - 1) + c (k < t) goes to group g + c + 1 (mod G),
// landing on its port k (G - 1) + (G - 2 - c). Ports of one router that land on one router are one
// link of their summed bandwidth (a trunk). The layout is the same seen from every group: turning
// the group (g -> g + 1 mod G) maps the network onto itself.
Topology dragonfly(const PresetArguments& arguments) {
  const std::int64_t groups = arguments.size(1, max_count);
  const std::int64_t routers = arguments.integer("routers", 1, 4096);
  const std::int64_t ranks = arguments.integer("ranks", 1, 4096);
  const std::int64_t global = arguments.integer("global", 0, 4096);
  const LinkDirection rank_link{arguments.bandwidth("bw"), arguments.latency("lat")};
  const LinkDirection local_link{arguments.bandwidth("local_bw"), arguments.latency("local_lat")};
  const double global_bandwidth = arguments.bandwidth("global_bw");
  const double global_latency = arguments.latency("global_lat");
  if (groups > 1 && routers * global < groups - 1)
    throw std::invalid_argument(fmt::format(
        "topology preset '{}': {} groups need {} global ports a group to join every pair of groups, but routers x global "
        "is {} x {} = {}; raise global or routers, or use at most {} groups",
        arguments.text(), groups, groups - 1, routers, global, routers * global, routers * global + 1));
  const std::int64_t endpoints = groups * routers * ranks;
  const std::int64_t per_pair = groups > 1 ? routers * global / (groups - 1) : 0;
  const std::int64_t total_nodes = endpoints + groups * routers;
  const std::int64_t total_links = endpoints + groups * routers * (routers - 1) / 2 + groups * (groups - 1) * per_pair / 2;
  if (endpoints > max_count || total_nodes > max_topology_nodes || total_links > max_topology_links)
    throw std::invalid_argument(fmt::format("topology preset '{}' would have {} ranks, {} nodes and at most {} links; "
                                            "the limits are {} nodes and {} links",
                                            arguments.text(), endpoints, total_nodes, total_links, max_topology_nodes,
                                            max_topology_links));
  Topology topology(arguments.text());
  topology.reserve(total_nodes, total_links);
  for (std::int64_t group = 0; group < groups; ++group)
    for (std::int64_t router = 0; router < routers; ++router)
      for (std::int64_t rank = 0; rank < ranks; ++rank)
        topology.add_endpoint(fmt::format("group{}.router{}.rank{}", group, router, rank));
  const auto first_router = static_cast<NodeId>(endpoints);
  const auto router_node = [&](std::int64_t group, std::int64_t router) {
    return static_cast<NodeId>(first_router + group * routers + router);
  };
  for (std::int64_t group = 0; group < groups; ++group)
    for (std::int64_t router = 0; router < routers; ++router)
      topology.add_switch(fmt::format("group{}.router{}", group, router));
  for (std::int64_t rank = 0; rank < endpoints; ++rank)
    topology.add_link(static_cast<NodeId>(rank), router_node(rank / ranks / routers, rank / ranks % routers), rank_link);
  for (std::int64_t group = 0; group < groups; ++group)
    for (std::int64_t a = 0; a < routers; ++a)
      for (std::int64_t b = a + 1; b < routers; ++b) topology.add_link(router_node(group, a), router_node(group, b), local_link);
  // Global links, counted per pair of routers (a trunk of several ports is one link).
  std::map<std::pair<NodeId, NodeId>, int> trunks;
  for (std::int64_t group = 0; group < groups && groups > 1; ++group)
    for (std::int64_t port = 0; port < per_pair * (groups - 1); ++port) {
      const std::int64_t k = port / (groups - 1);
      const std::int64_t c = port % (groups - 1);
      const std::int64_t other_group = (group + c + 1) % groups;
      const std::int64_t other_port = k * (groups - 1) + (groups - 2 - c);
      if (std::pair(group, port) >= std::pair(other_group, other_port)) continue;  // added from the other end
      const NodeId a = router_node(group, port / global);
      const NodeId b = router_node(other_group, other_port / global);
      ++trunks[{std::min(a, b), std::max(a, b)}];
    }
  for (const auto& [pair, count] : trunks)
    topology.add_link(pair.first, pair.second, {static_cast<double>(count) * global_bandwidth, global_latency});
  std::vector<std::vector<NodeId>> turns(3);
  turns[0].resize(static_cast<std::size_t>(total_nodes));
  turns[2].resize(static_cast<std::size_t>(total_nodes));
  for (std::int64_t id = 0; id < total_nodes; ++id) {
    const bool endpoint = id < endpoints;
    const std::int64_t group = endpoint ? id / ranks / routers : (id - endpoints) / routers;
    const std::int64_t shift = endpoint ? routers * ranks : routers;  // one group
    const std::int64_t next = group + 1 < groups ? id + shift : id - (groups - 1) * shift;
    turns[0][static_cast<std::size_t>(id)] = static_cast<NodeId>(next);
    turns[2][static_cast<std::size_t>(id)] =
        static_cast<NodeId>(endpoint ? id - id % ranks + (id % ranks + 1) % ranks : id);  // a rank under its router
  }
  topology.set_rank_symmetry(RankSymmetry{{static_cast<int>(groups), static_cast<int>(routers), static_cast<int>(ranks)}, std::move(turns)});
  return topology;
}

// Ranks 0..N-1, then the memory bus: a switch whose capacity is the memory bandwidth every copy
// shares. Each rank's link carries its copy bandwidth; with N processes on C < N cores a process
// runs C/N of the time, so its link gets C/N of the bandwidth and N/C times the latency.
Topology host_shm(const PresetArguments& arguments) {
  const std::int64_t n = arguments.size(1, max_count);
  const std::int64_t cores = arguments.has("cores") ? arguments.integer("cores", 1, max_count) : n;
  const double share = std::min(1.0, static_cast<double>(cores) / static_cast<double>(n));
  const LinkDirection link{arguments.bandwidth("bw") * share, arguments.latency("lat") / share};
  const double memory_bandwidth = arguments.bandwidth("mem_bw");
  Topology topology(arguments.text());
  topology.reserve(n + 1, n);
  for (std::int64_t rank = 0; rank < n; ++rank) topology.add_endpoint(fmt::format("process{}", rank));
  const NodeId bus = topology.add_switch("memory-bus", memory_bandwidth);
  for (NodeId rank = 0; rank < n; ++rank) topology.add_link(rank, bus, link);
  return topology;
}

}  // namespace ringlab::presets
