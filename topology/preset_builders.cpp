// The preset topologies. Each computes its node and link counts first, so that reserve() refuses
// one past the limits before anything is allocated. Rank numbering is given per preset.
#include <fmt/format.h>

#include <algorithm>

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
  return topology;
}

// Rank i is linked to ranks i-1 and i+1 (mod N).
Topology ring(const PresetArguments& arguments) {
  const std::int64_t n = arguments.size(1, max_count);
  const LinkDirection link{arguments.bandwidth("bw"), arguments.latency("lat")};
  Topology topology = direct_network(arguments, n, cycle_links(n));
  for (std::int64_t i = 0; i < cycle_links(n); ++i)
    topology.add_link(static_cast<NodeId>(i), static_cast<NodeId>((i + 1) % n), link);
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

// GPU n * G + g is GPU g of node n. Each node's GPUs share one NVSwitch (one non-blocking switch
// stands for the node's NVSwitch chips). With more than one node, GPU g's NIC goes to the leaf
// of rail g in its unit of leaf_ports nodes, and every leaf has one uplink to a non-blocking
// spine carrying the sum of its down links (1:1, full bisection).
Topology nvswitch_cluster(const PresetArguments& arguments) {
  const std::int64_t gpus = arguments.size(1, 1024);
  const std::int64_t nodes = arguments.integer("nodes", 1, max_count);
  const std::int64_t leaf_ports = arguments.integer("leaf_ports", 1, 4096);
  const LinkDirection nvlink{arguments.bandwidth("nvlink_bw"), arguments.latency("nvlink_lat")};
  const double nic_bandwidth = arguments.bandwidth("nic_bw");
  const double network_latency = arguments.latency("nic_lat");
  const std::int64_t units = nodes > 1 ? (nodes + leaf_ports - 1) / leaf_ports : 0;
  const std::int64_t leaves = units * gpus;
  const std::int64_t total_nodes = nodes * gpus + nodes + leaves + (nodes > 1 ? 1 : 0);
  const std::int64_t total_links = nodes * gpus + (nodes > 1 ? nodes * gpus + leaves : 0);
  if (total_nodes > max_topology_nodes || total_links > max_topology_links)
    throw std::invalid_argument(fmt::format("topology preset '{}' would have {} nodes and {} links; the limits are {} "
                                            "and {}",
                                            arguments.text(), total_nodes, total_links, max_topology_nodes,
                                            max_topology_links));
  Topology topology(arguments.text());
  topology.reserve(total_nodes, total_links);
  for (std::int64_t node = 0; node < nodes; ++node)
    for (std::int64_t gpu = 0; gpu < gpus; ++gpu) topology.add_endpoint(fmt::format("node{}.gpu{}", node, gpu));
  const auto first_nvswitch = static_cast<NodeId>(nodes * gpus);
  for (std::int64_t node = 0; node < nodes; ++node) topology.add_switch(fmt::format("node{}.nvswitch", node));
  for (std::int64_t rank = 0; rank < nodes * gpus; ++rank)
    topology.add_link(static_cast<NodeId>(rank), first_nvswitch + static_cast<NodeId>(rank / gpus), nvlink);
  if (nodes == 1) return topology;
  const auto first_leaf = static_cast<NodeId>(first_nvswitch + nodes);
  for (std::int64_t unit = 0; unit < units; ++unit)
    for (std::int64_t rail = 0; rail < gpus; ++rail) topology.add_switch(fmt::format("unit{}.rail{}.leaf", unit, rail));
  const NodeId spine = topology.add_switch("spine");
  const LinkDirection nic{nic_bandwidth, network_latency};
  for (std::int64_t rank = 0; rank < nodes * gpus; ++rank) {
    const std::int64_t unit = rank / gpus / leaf_ports;
    topology.add_link(static_cast<NodeId>(rank), first_leaf + static_cast<NodeId>(unit * gpus + rank % gpus), nic);
  }
  for (std::int64_t unit = 0; unit < units; ++unit) {
    const std::int64_t nodes_in_unit = std::min(leaf_ports, nodes - unit * leaf_ports);
    const LinkDirection uplink{static_cast<double>(nodes_in_unit) * nic_bandwidth, network_latency};
    for (std::int64_t rail = 0; rail < gpus; ++rail)
      topology.add_link(first_leaf + static_cast<NodeId>(unit * gpus + rail), spine, uplink);
  }
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
