// Internal to the presets: one machine's inside (a node template) replicated `nodes` times, each
// node's NICs joined by a rail-optimised fat-tree (docs/topology-format.md, "Presets").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace ringlab::presets {

// Local ids: 0 .. gpus - 1 are the GPUs (endpoints), gpus + i is switches[i].
struct NodeTemplate {
  struct LocalSwitch {
    std::string name;  // "nvswitch"; the node's copy is "node<n>.<name>"
    double capacity = unlimited_capacity;
  };
  struct LocalLink {
    int a = 0;
    int b = 0;
    LinkDirection direction;
  };
  // A symmetry digit of the machine: image of every local id, and of every rail.
  struct LocalTurn {
    int radix = 1;
    std::vector<int> local;  // empty: the digit does not turn
    std::vector<int> rails;
  };
  int gpus = 1;
  std::vector<LocalSwitch> switches;
  std::vector<LocalLink> links;
  // Rail r's NIC sits at local id nic_at[r] (a GPU or a switch) and joins the leaf of rail r with
  // nic_ports[r] NICs' bandwidth.
  std::vector<int> nic_at;
  std::vector<int> nic_ports;
  bool endpoints_forward = false;
  // The machine's own symmetry digits, most significant first (their radices multiply to gpus);
  // nullopt: none known, and the cluster declares none within a node.
  std::optional<std::vector<LocalTurn>> turns;
};

struct FabricShape {
  std::int64_t nodes = 1;
  std::int64_t leaf_ports = 20;  // nodes a leaf serves (a unit)
  std::int64_t taper = 1;        // each leaf uplink carries its down links' sum / taper
  LinkDirection nic;             // one NIC port
};

// GPU n * gpus + g is GPU g of node n ("node<n>.gpu<g>"); then the nodes' switches node by node;
// then with nodes > 1 a leaf per (unit, rail) and one spine. Declares the rank symmetry (unit,
// node in unit, the machine's one digit or a node's GPUs not turning) when the units are whole,
// or the machine's digits alone with one node. Throws std::invalid_argument past the size limits.
Topology replicated_cluster(const std::string& text, const NodeTemplate& machine, const FabricShape& fabric);

}  // namespace ringlab::presets
