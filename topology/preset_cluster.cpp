#include "topology/preset_cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ringlab::presets {

namespace {

// Where every node of the cluster sits; see replicated_cluster.
struct Layout {
  std::int64_t gpus;
  std::int64_t switches;
  std::int64_t rails;
  std::int64_t nodes;
  std::int64_t units;
  NodeId first_switch() const { return static_cast<NodeId>(nodes * gpus); }
  NodeId first_leaf() const { return static_cast<NodeId>(nodes * (gpus + switches)); }
  NodeId global(std::int64_t node, int local) const {
    return static_cast<NodeId>(local < gpus ? node * gpus + local : first_switch() + node * switches + (local - gpus));
  }
  NodeId leaf(std::int64_t unit, std::int64_t rail) const { return static_cast<NodeId>(first_leaf() + unit * rails + rail); }
};

// The symmetry of the cluster built: digits (unit, node in unit) when there is a network, then the
// machine's own (or one digit of gpus that does not turn).
RankSymmetry cluster_symmetry(const NodeTemplate& machine, const Layout& layout, std::int64_t per_unit,
                              std::size_t size) {
  const bool network = layout.nodes > 1;
  // With a network the innermost digit is the node (ranks_per_node, rank_groups.hpp): a machine of
  // several digits counts as one that does not turn.
  std::vector<NodeTemplate::LocalTurn> inner =
      machine.turns && !(network && machine.turns->size() > 1) ? *machine.turns
                                                               : std::vector<NodeTemplate::LocalTurn>{{machine.gpus, {}, {}}};
  RankSymmetry symmetry;
  const auto identity = [&] {
    std::vector<NodeId> turn(size);
    for (std::size_t id = 0; id < size; ++id) turn[id] = static_cast<NodeId>(id);
    return turn;
  };
  // Node (unit, k) of the cluster goes to `moved(unit, k)`: its GPUs and switches with it.
  const auto node_turn = [&](auto moved) {
    std::vector<NodeId> turn = identity();
    for (std::int64_t unit = 0; unit < layout.units; ++unit)
      for (std::int64_t k = 0; k < per_unit; ++k) {
        const auto [to_unit, to_k] = moved(unit, k);
        for (int local = 0; local < layout.gpus + layout.switches; ++local)
          turn[static_cast<std::size_t>(layout.global(unit * per_unit + k, local))] = layout.global(to_unit * per_unit + to_k, local);
      }
    return turn;
  };
  if (network) {
    symmetry.radices = {static_cast<int>(layout.units), static_cast<int>(per_unit)};
    std::vector<NodeId> unit_turn = node_turn([&](std::int64_t unit, std::int64_t k) {
      return std::pair((unit + 1) % layout.units, k);
    });
    for (std::int64_t unit = 0; unit < layout.units; ++unit)
      for (std::int64_t rail = 0; rail < layout.rails; ++rail)
        unit_turn[static_cast<std::size_t>(layout.leaf(unit, rail))] = layout.leaf((unit + 1) % layout.units, rail);
    symmetry.turns.push_back(std::move(unit_turn));
    symmetry.turns.push_back(node_turn([&](std::int64_t unit, std::int64_t k) { return std::pair(unit, (k + 1) % per_unit); }));
  }
  for (const NodeTemplate::LocalTurn& digit : inner) {
    symmetry.radices.push_back(digit.radix);
    if (digit.local.empty()) {
      symmetry.turns.emplace_back();
      continue;
    }
    std::vector<NodeId> turn = identity();
    for (std::int64_t node = 0; node < layout.nodes; ++node)
      for (int local = 0; local < layout.gpus + layout.switches; ++local)
        turn[static_cast<std::size_t>(layout.global(node, local))] = layout.global(node, digit.local[static_cast<std::size_t>(local)]);
    for (std::int64_t unit = 0; unit < layout.units; ++unit)
      for (std::int64_t rail = 0; rail < layout.rails; ++rail)
        turn[static_cast<std::size_t>(layout.leaf(unit, rail))] = layout.leaf(unit, digit.rails[static_cast<std::size_t>(rail)]);
    symmetry.turns.push_back(std::move(turn));
  }
  return symmetry;
}

}  // namespace

Topology replicated_cluster(const std::string& text, const NodeTemplate& machine, const FabricShape& fabric) {
  const bool network = fabric.nodes > 1;
  const Layout layout{machine.gpus,
                      static_cast<std::int64_t>(machine.switches.size()),
                      static_cast<std::int64_t>(machine.nic_at.size()),
                      fabric.nodes,
                      network ? (fabric.nodes + fabric.leaf_ports - 1) / fabric.leaf_ports : 0};
  const std::int64_t leaves = layout.units * layout.rails;
  const std::int64_t total_nodes = layout.nodes * (layout.gpus + layout.switches) + leaves + (network ? 1 : 0);
  const std::int64_t total_links = layout.nodes * static_cast<std::int64_t>(machine.links.size()) +
                                   (network ? layout.nodes * layout.rails + leaves : 0);
  if (total_nodes > max_topology_nodes || total_links > max_topology_links)
    throw std::invalid_argument(fmt::format("topology preset '{}' would have {} nodes and {} links; the limits are {} "
                                            "and {}",
                                            text, total_nodes, total_links, max_topology_nodes, max_topology_links));
  Topology topology(text);
  topology.reserve(total_nodes, total_links);
  topology.set_endpoints_forward(machine.endpoints_forward);
  for (std::int64_t node = 0; node < layout.nodes; ++node)
    for (std::int64_t gpu = 0; gpu < layout.gpus; ++gpu) topology.add_endpoint(fmt::format("node{}.gpu{}", node, gpu));
  for (std::int64_t node = 0; node < layout.nodes; ++node)
    for (const NodeTemplate::LocalSwitch& local : machine.switches)
      topology.add_switch(fmt::format("node{}.{}", node, local.name), local.capacity);
  for (std::int64_t node = 0; node < layout.nodes; ++node)
    for (const NodeTemplate::LocalLink& link : machine.links)
      topology.add_link(layout.global(node, link.a), layout.global(node, link.b), link.direction);
  const std::int64_t per_unit = std::min(fabric.leaf_ports, fabric.nodes);
  if (network) {
    for (std::int64_t unit = 0; unit < layout.units; ++unit)
      for (std::int64_t rail = 0; rail < layout.rails; ++rail) topology.add_switch(fmt::format("unit{}.rail{}.leaf", unit, rail));
    const NodeId spine = topology.add_switch("spine");
    const auto ports = [&](std::int64_t rail) { return static_cast<double>(machine.nic_ports[static_cast<std::size_t>(rail)]); };
    for (std::int64_t node = 0; node < layout.nodes; ++node)
      for (std::int64_t rail = 0; rail < layout.rails; ++rail)
        topology.add_link(layout.global(node, machine.nic_at[static_cast<std::size_t>(rail)]), layout.leaf(node / fabric.leaf_ports, rail),
                          {ports(rail) * fabric.nic.bandwidth, fabric.nic.latency});
    for (std::int64_t unit = 0; unit < layout.units; ++unit) {
      const auto in_unit = static_cast<double>(std::min(fabric.leaf_ports, fabric.nodes - unit * fabric.leaf_ports));
      for (std::int64_t rail = 0; rail < layout.rails; ++rail)
        topology.add_link(layout.leaf(unit, rail), spine,
                          {in_unit * ports(rail) * fabric.nic.bandwidth / static_cast<double>(fabric.taper), fabric.nic.latency});
    }
  }
  // Whole units (the last as full as the others) are alike; one node needs its own symmetry.
  if ((network && fabric.nodes % per_unit == 0) || (!network && machine.turns))
    topology.set_rank_symmetry(cluster_symmetry(machine, layout, per_unit, static_cast<std::size_t>(total_nodes)));
  return topology;
}

}  // namespace ringlab::presets
