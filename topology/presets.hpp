// Named topologies with parameters, built from a string (grammar and defaults:
// docs/topology-format.md, "Presets"):
//
//   preset    = name [":" size] { "," parameter }
//   size      = N | RxC                     e.g. switch:8, torus2d:4x4, nvswitch:8
//   parameter = key ("=" | ":") value       e.g. bw=25e9, lat=1e-6, nodes:4
//
// Bandwidths are bytes/s per direction, latencies seconds per link.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.hpp"

namespace ringlab {

struct PresetParameter {
  std::string_view key;
  std::string_view default_value;  // as it would be written in the preset string
  std::string_view meaning;
};

struct PresetInfo {
  std::string_view name;       // "switch"
  std::string_view usage;      // "switch:N"
  std::string_view summary;    // one line
  std::vector<PresetParameter> parameters;
};

// Every preset, in a fixed order.
const std::vector<PresetInfo>& preset_catalog();
// "fully-connected:N, switch:N, ..." for error messages.
std::string preset_usages();
// One paragraph per preset: usage, summary, and each parameter with its default (for --help).
std::string describe_presets();

// Builds and validates the topology the string names; its name() is the string. Throws
// std::invalid_argument naming the preset and the parameter that is wrong, or listing the valid
// presets when the name is unknown.
Topology make_preset_topology(std::string_view preset);

// The preset that stands for `gpus` GPUs of one host as the CUDA runtime sees them (ringlab
// topology detect): fully-connected:G when every ordered pair has peer access (NVLink or
// NVSwitch-class machines), otherwise pcie-tree with one GPU per PCIe switch, so that every
// transfer crosses the host bridge (no peer access: staged through the host). Throws
// std::invalid_argument for fewer than 2 GPUs.
std::string preset_for_gpus(int gpus, bool peer_access_everywhere);

}  // namespace ringlab
