// The NICs a multi-node preset names (nic=...): bytes/s per direction of one port and the latency
// of each network link. Sources: docs/topology-format.md, "Spec-sheet figures".
#include <fmt/format.h>

#include <array>
#include <string_view>
#include <vector>

#include "topology/preset_arguments.hpp"

namespace ringlab::presets {

namespace {

struct Nic {
  std::string_view name;
  double bandwidth;  // the data rate (after line coding) / 8
  double latency;    // per network link: a route on one rail has two, across the spine four
};

constexpr std::array<Nic, 10> nics = {{
    {"ib100", 12.5e9, 0.3e-6},     // EDR InfiniBand, 4 x 25 Gb/s
    {"ib200", 25e9, 0.3e-6},       // HDR
    {"ib400", 50e9, 0.3e-6},       // NDR
    {"roce100", 12.5e9, 0.5e-6},   // 100 GbE RDMA
    {"roce200", 25e9, 0.5e-6},     // 200 GbE
    {"roce400", 50e9, 0.5e-6},     // 400 GbE
    {"efa-p4d", 6.25e9, 5e-6},     // AWS p4d: 400 Gb/s an instance of 8 GPUs
    {"efa-p5", 50e9, 5e-6},        // AWS p5: 3200 Gb/s an instance of 8 GPUs
    {"tcp25", 3.125e9, 10e-6},     // 25 GbE through the kernel's TCP stack
    {"tcp100", 12.5e9, 10e-6},     // 100 GbE, TCP
}};

}  // namespace

LinkDirection nic_link(const PresetArguments& arguments) {
  std::vector<std::string_view> names;
  for (const Nic& nic : nics) names.push_back(nic.name);
  const std::string chosen = arguments.word("nic", names);
  const Nic* nic = nics.data();
  while (nic->name != chosen) ++nic;
  return {arguments.has("nic_bw") ? arguments.bandwidth("nic_bw") : nic->bandwidth,
          arguments.has("nic_lat") ? arguments.latency("nic_lat") : nic->latency};
}

}  // namespace ringlab::presets
