// The GPU machines: NVSwitch nodes (nvswitch, dgx-a100, dgx-h100, hgx-h100), the DGX-1's hybrid
// cube-mesh (dgx1-v100) and PCIe boxes (pcie-box), each a node template replicated by
// replicated_cluster. Numbers and their sources: docs/topology-format.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "io/checked_number.hpp"
#include "io/printable.hpp"
#include "topology/physical_ranges.hpp"
#include "topology/preset_arguments.hpp"
#include "topology/preset_cluster.hpp"

namespace ringlab::presets {

namespace {

// G GPUs on one non-blocking switch standing for the node's NVSwitch chips; GPU g's NIC is rail g.
NodeTemplate nvswitch_machine(int gpus, LinkDirection nvlink) {
  NodeTemplate machine;
  machine.gpus = gpus;
  machine.switches = {{"nvswitch", unlimited_capacity}};
  NodeTemplate::LocalTurn turn{gpus, {}, {}};
  for (int gpu = 0; gpu < gpus; ++gpu) {
    machine.links.push_back({gpu, gpus, nvlink});
    machine.nic_at.push_back(gpu);
    machine.nic_ports.push_back(1);
    turn.local.push_back((gpu + 1) % gpus);
    turn.rails.push_back((gpu + 1) % gpus);
  }
  turn.local.push_back(gpus);  // the switch stays
  machine.turns = std::vector{std::move(turn)};
  return machine;
}

FabricShape fabric_shape(const PresetArguments& arguments, LinkDirection nic) {
  return {arguments.integer("nodes", 1, max_topology_nodes), arguments.integer("leaf_ports", 1, 4096),
          arguments.integer("taper", 1, 64), nic};
}

// The PCIe 3.0-5.0 x16 data rates per direction: 16 lanes x 8, 16, 32 GT/s x 128/130 / 8.
double pcie_x16_rate(const PresetArguments& arguments) {
  constexpr std::array<double, 3> rates = {15.75e9, 31.5e9, 63e9};
  return rates[static_cast<std::size_t>(arguments.integer("gen", 3, 5) - 3)];
}

// The GPU reduces at its memory bandwidth: two operands read and the result written per byte.
Topology with_gpu_gamma(Topology topology, const PresetArguments& arguments) {
  const double gamma = 3 / arguments.bandwidth("gpu_mem_bw");
  if (const auto problem = io::number_problem(gamma, ranges::gamma_seconds_per_byte))
    throw std::invalid_argument(fmt::format("topology preset '{}': gpu_mem_bw gives a gamma of {:g} s/B: {}; raise it",
                                            io::printable(arguments.text()), gamma, *problem));
  topology.set_gamma_seconds_per_byte(gamma);
  return topology;
}

}  // namespace

// GPU n * G + g is GPU g of node n; GPU g's NIC joins rail g's leaf.
Topology nvswitch_cluster(const PresetArguments& arguments) {
  const auto gpus = static_cast<int>(arguments.size(1, 1024));
  const NodeTemplate machine = nvswitch_machine(gpus, {arguments.bandwidth("nvlink_bw"), arguments.latency("nvlink_lat")});
  return replicated_cluster(arguments.text(), machine,
                            fabric_shape(arguments, {arguments.bandwidth("nic_bw"), arguments.latency("nic_lat")}));
}

// nvswitch with a named machine's numbers and a named NIC.
Topology nvswitch_system(const PresetArguments& arguments) {
  arguments.require_no_size();
  const auto gpus = static_cast<int>(arguments.integer("gpus", 1, 8));
  const NodeTemplate machine = nvswitch_machine(gpus, {arguments.bandwidth("nvlink_bw"), arguments.latency("nvlink_lat")});
  return with_gpu_gamma(replicated_cluster(arguments.text(), machine, fabric_shape(arguments, nic_link(arguments))), arguments);
}

// Local ids: GPUs 0-7, pcie-switch0-3 (8-11: GPUs 2s and 2s+1 and NIC s under switch s), cpu0 (12:
// switches 0 and 1) and cpu1 (13). The NVLinks of the hybrid cube-mesh: each GPU has 6, the pairs
// below with 2 have one link of twice the bandwidth. GPUs relay (two GPUs without an NVLink
// between them route over one that has both). Swapping the quads (GPU i -> i + 4 mod 8, switch s
// -> s + 2 mod 4, cpu0 <-> cpu1) maps the node onto itself: ranks are digits (quad, GPU in quad),
// the second not turning.
Topology dgx1_v100(const PresetArguments& arguments) {
  arguments.require_no_size();
  const LinkDirection nvlink{arguments.bandwidth("nvlink_bw"), arguments.latency("nvlink_lat")};
  const LinkDirection pcie{arguments.bandwidth("pcie_bw"), arguments.latency("pcie_lat")};
  constexpr std::array<std::array<int, 3>, 16> nvlinks = {{{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1},
                                                           {1, 5, 2}, {2, 3, 2}, {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1},
                                                           {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}}};
  NodeTemplate machine;
  machine.gpus = 8;
  machine.endpoints_forward = true;
  for (int s = 0; s < 4; ++s) machine.switches.push_back({fmt::format("pcie-switch{}", s), unlimited_capacity});
  machine.switches.push_back({"cpu0", unlimited_capacity});
  machine.switches.push_back({"cpu1", unlimited_capacity});
  for (const auto& [a, b, count] : nvlinks)
    machine.links.push_back({a, b, {count * nvlink.bandwidth, nvlink.latency}});
  for (int gpu = 0; gpu < 8; ++gpu) machine.links.push_back({gpu, 8 + gpu / 2, pcie});
  for (int s = 0; s < 4; ++s) {
    machine.links.push_back({8 + s, 12 + s / 2, pcie});
    machine.nic_at.push_back(8 + s);
    machine.nic_ports.push_back(1);
  }
  machine.links.push_back({12, 13, {arguments.bandwidth("cpu_bw"), arguments.latency("cpu_lat")}});
  NodeTemplate::LocalTurn quads{2, {4, 5, 6, 7, 0, 1, 2, 3, 10, 11, 8, 9, 13, 12}, {2, 3, 0, 1}};
  machine.turns = std::vector<NodeTemplate::LocalTurn>{std::move(quads), {4, {}, {}}};
  return with_gpu_gamma(replicated_cluster(arguments.text(), machine, fabric_shape(arguments, nic_link(arguments))), arguments);
}

// GPU s * G + g is GPU g under PCIe switch s. With p2p=on the switches hang under one host bridge
// and switch s carries NIC s (GPUDirect RDMA); with p2p=off every transfer is staged in host
// memory: each GPU links straight to it, with its x16 link or its share of its switch's uplink,
// whichever is less, and two PCIe links' latency; the memory bus is a switch of capacity mem_bw / 2
// (every staged byte is written and read), and it carries the node's NICs (one per switch) as one.
Topology pcie_box(const PresetArguments& arguments) {
  arguments.require_no_size();
  const auto switches = static_cast<int>(arguments.integer("switches", 1, 64));
  const auto per_switch = static_cast<int>(arguments.integer("gpus_per_switch", 1, 64));
  const bool p2p = arguments.word("p2p", {"on", "off"}) == "on";
  const double x16 = pcie_x16_rate(arguments);
  const double gpu_bandwidth = arguments.has("bw") ? arguments.bandwidth("bw") : x16;
  const double uplink_bandwidth = arguments.has("uplink_bw") ? arguments.bandwidth("uplink_bw") : x16;
  const double latency = arguments.latency("lat");
  const double memory_bandwidth = arguments.bandwidth("mem_bw");  // checked with p2p=on too
  const int gpus = switches * per_switch;
  NodeTemplate machine;
  machine.gpus = gpus;
  NodeTemplate::LocalTurn switch_turn{switches, {}, {}};
  NodeTemplate::LocalTurn gpu_turn{per_switch, {}, {}};
  for (int gpu = 0; gpu < gpus; ++gpu) {
    switch_turn.local.push_back((gpu / per_switch + 1) % switches * per_switch + gpu % per_switch);
    gpu_turn.local.push_back(gpu - gpu % per_switch + (gpu % per_switch + 1) % per_switch);
  }
  if (p2p) {
    for (int s = 0; s < switches; ++s) machine.switches.push_back({fmt::format("pcie-switch{}", s), unlimited_capacity});
    machine.switches.push_back({"host-bridge", unlimited_capacity});
    for (int gpu = 0; gpu < gpus; ++gpu) machine.links.push_back({gpu, gpus + gpu / per_switch, {gpu_bandwidth, latency}});
    for (int s = 0; s < switches; ++s) {
      machine.links.push_back({gpus + s, gpus + switches, {uplink_bandwidth, latency}});
      machine.nic_at.push_back(gpus + s);
      machine.nic_ports.push_back(1);
      switch_turn.local.push_back(gpus + (s + 1) % switches);
      gpu_turn.local.push_back(gpus + s);
      switch_turn.rails.push_back((s + 1) % switches);
      gpu_turn.rails.push_back(s);
    }
    switch_turn.local.push_back(gpus + switches);
    gpu_turn.local.push_back(gpus + switches);
  } else {
    machine.switches.push_back({"host-memory", memory_bandwidth / 2});
    const double share = std::min(gpu_bandwidth, uplink_bandwidth / per_switch);
    for (int gpu = 0; gpu < gpus; ++gpu) machine.links.push_back({gpu, gpus, {share, 2 * latency}});
    machine.nic_at = {gpus};
    machine.nic_ports = {switches};
    for (NodeTemplate::LocalTurn* turn : {&switch_turn, &gpu_turn}) {
      turn->local.push_back(gpus);
      turn->rails = {0};
    }
  }
  machine.turns = std::vector{std::move(switch_turn), std::move(gpu_turn)};
  return with_gpu_gamma(replicated_cluster(arguments.text(), machine, fabric_shape(arguments, nic_link(arguments))), arguments);
}

}  // namespace ringlab::presets
