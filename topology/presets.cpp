#include "topology/presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "topology/physical_ranges.hpp"
#include "topology/preset_arguments.hpp"
#include "io/printable.hpp"

namespace ringlab {

namespace {

using presets::PresetArguments;
using Builder = Topology (*)(const PresetArguments&);

// In the order of preset_catalog().
constexpr std::array<Builder, 13> builders = {
    presets::fully_connected, presets::single_switch,   presets::ring,            presets::torus2d,
    presets::pcie_tree,       presets::nvswitch_cluster, presets::host_shm,        presets::dragonfly,
    presets::nvswitch_system, presets::nvswitch_system,  presets::nvswitch_system, presets::dgx1_v100,
    presets::pcie_box};

// A machine's parameters between nodes (first) and the network's (nic, nic_bw, nic_lat,
// leaf_ports, taper) of a multi-node preset.
std::vector<PresetParameter> cluster_parameters(std::string_view nic, std::vector<PresetParameter> machine) {
  std::vector<PresetParameter> parameters = {{"nodes", "1", "number of nodes M (nodes:M)"}};
  parameters.insert(parameters.end(), machine.begin(), machine.end());
  parameters.insert(parameters.end(),
                    {{"nic", nic, "NIC: ib100|ib200|ib400|roce100|roce200|roce400|efa-p4d|efa-p5|tcp25|tcp100"},
                     {"nic_bw", "(nic)", "NIC bandwidth, bytes/s, instead of the nic's"},
                     {"nic_lat", "(nic)", "latency of every network link, s, instead of the nic's"},
                     {"leaf_ports", "20", "nodes per leaf switch"},
                     {"taper", "1", "spine taper T (T:1)"}});
  return parameters;
}

// dgx-a100, dgx-h100, hgx-h100: nvswitch with the machine's numbers.
std::vector<PresetParameter> nvswitch_system_parameters(std::string_view nvlink_bw, std::string_view meaning,
                                                        PresetParameter memory, std::string_view nic) {
  return cluster_parameters(nic, {{"gpus", "8", "GPUs a node used (1-8)"},
                                  {"nvlink_bw", nvlink_bw, meaning},
                                  {"nvlink_lat", "0.5e-6", "GPU-to-NVSwitch latency, s"},
                                  memory});
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::int64_t parse_integer(const std::string& text, bool* ok) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  *ok = error == std::errc() && end == text.data() + text.size() && !text.empty();
  return value;
}

}  // namespace

namespace presets {

PresetArguments::PresetArguments(const PresetInfo& info, std::string text, std::string size,
                                 std::map<std::string, std::string> values)
    : info_(info), text_(std::move(text)), size_(std::move(size)), values_(std::move(values)) {
  for (const auto& [key, value] : values_) {
    bool known = false;
    for (const PresetParameter& parameter : info_.parameters) known = known || parameter.key == key;
    if (known) continue;
    std::vector<std::string_view> keys;
    for (const PresetParameter& parameter : info_.parameters) keys.push_back(parameter.key);
    fail(fmt::format("unknown parameter '{}'; valid parameters: {}", io::printable(key), fmt::join(keys, ", ")));
  }
}

void PresetArguments::fail(const std::string& what) const {
  throw std::invalid_argument(fmt::format("topology preset '{}': {}", io::printable(text_), what));
}

std::int64_t PresetArguments::size(std::int64_t min, std::int64_t max) const {
  if (size_.empty()) fail(fmt::format("missing size; write {}", info_.usage));
  bool ok = false;
  const std::int64_t value = parse_integer(size_, &ok);
  if (!ok || value < min || value > max)
    fail(fmt::format("size '{}' must be an integer in [{}, {}] ({})", size_, min, max, info_.usage));
  return value;
}

std::pair<std::int64_t, std::int64_t> PresetArguments::grid_size(std::int64_t max_each) const {
  const auto cross = size_.find('x');
  bool rows_ok = false;
  bool columns_ok = false;
  const std::int64_t rows = cross == std::string::npos ? 0 : parse_integer(size_.substr(0, cross), &rows_ok);
  const std::int64_t columns = cross == std::string::npos ? 0 : parse_integer(size_.substr(cross + 1), &columns_ok);
  if (!rows_ok || !columns_ok || rows < 1 || columns < 1 || rows > max_each || columns > max_each)
    fail(fmt::format("size '{}' must be RxC with integers R and C in [1, {}] ({})", size_, max_each, info_.usage));
  return {rows, columns};
}

void PresetArguments::require_no_size() const {
  if (!size_.empty()) fail(fmt::format("takes no size after ':'; set its parameters instead, e.g. {},{}=...",
                                       info_.name, info_.parameters.front().key));
}

std::string PresetArguments::raw(std::string_view key) const {
  if (auto found = values_.find(std::string(key)); found != values_.end()) return found->second;
  for (const PresetParameter& parameter : info_.parameters)
    if (parameter.key == key) return std::string(parameter.default_value);
  throw std::logic_error(fmt::format("preset {} has no parameter {}", info_.name, key));
}

std::int64_t PresetArguments::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
  bool ok = false;
  const std::string text = raw(key);
  const std::int64_t value = parse_integer(text, &ok);
  if (!ok || value < min || value > max)
    fail(fmt::format("parameter {}='{}' must be an integer in [{}, {}]", key, text, min, max));
  return value;
}

double PresetArguments::number(std::string_view key, bool* ok) const {
  const std::string text = raw(key);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  *ok = error == std::errc() && end == text.data() + text.size() && std::isfinite(value);
  return value;
}

double PresetArguments::bandwidth(std::string_view key) const {
  bool ok = false;
  const double value = number(key, &ok);
  if (!ok || io::number_problem(value, ranges::bandwidth))
    fail(fmt::format("parameter {}='{}' must be a number of bytes/s in {}, e.g. {}=25e9", key, io::printable(raw(key)),
                     io::describe(ranges::bandwidth), key));
  return value;
}

double PresetArguments::latency(std::string_view key) const {
  bool ok = false;
  const double value = number(key, &ok);
  if (!ok || io::number_problem(value, ranges::latency))
    fail(fmt::format("parameter {}='{}' must be a number of seconds in {}, e.g. {}=1e-6", key, io::printable(raw(key)),
                     io::describe(ranges::latency), key));
  return value;
}

std::string PresetArguments::word(std::string_view key, const std::vector<std::string_view>& allowed) const {
  const std::string text = raw(key);
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
    fail(fmt::format("parameter {}='{}' must be one of: {}", key, io::printable(text), fmt::join(allowed, ", ")));
  return text;
}

}  // namespace presets

// Default numbers are per direction and describe a class of hardware (docs/topology-format.md).
const std::vector<PresetInfo>& preset_catalog() {
  static const std::vector<PresetInfo> catalog = {
      {"fully-connected", "fully-connected:N", "N endpoints, a direct link between every pair (endpoints relay)",
       {{"bw", "50e9", "link bandwidth, bytes/s (a GPU-to-GPU fabric link of an 8-GPU mesh)"},
        {"lat", "1e-6", "link latency, s"}}},
      {"switch", "switch:N", "N endpoints on one non-blocking switch",
       {{"bw", "12.5e9", "endpoint link bandwidth, bytes/s (a 100 Gb/s NIC port)"},
        {"lat", "0.5e-6", "link latency, s (two links per route)"}}},
      {"ring", "ring:N", "N endpoints on a bidirectional ring; partner at distance d costs d hops",
       {{"bw", "25e9", "link bandwidth, bytes/s (one NVLink-class brick)"}, {"lat", "1e-6", "link latency, s"}}},
      {"torus2d", "torus2d:RxC", "R x C endpoints, each linked to its 4 neighbours with wrap-around",
       {{"bw", "50e9", "link bandwidth, bytes/s (an inter-chip torus link)"}, {"lat", "1e-6", "link latency, s"}}},
      {"pcie-tree", "pcie-tree", "GPUs under PCIe switches under one host bridge",
       {{"switches", "2", "PCIe switches under the host bridge"},
        {"gpus_per_switch", "4", "GPUs under each PCIe switch"},
        {"bw", "12e9", "GPU-to-switch bandwidth, bytes/s (PCIe 3.0 x16, achieved)"},
        {"uplink_bw", "12e9", "switch-to-host-bridge bandwidth, bytes/s (one x16 uplink shared by its GPUs)"},
        {"lat", "0.5e-6", "latency of every PCIe link, s"}}},
      {"nvswitch", "nvswitch:G", "nodes of G GPUs on an NVSwitch, one NIC per GPU into a rail-optimised fat-tree",
       {{"nodes", "1", "number of nodes M"},
        {"nvlink_bw", "300e9", "GPU-to-NVSwitch bandwidth, bytes/s (A100-class NVLink, 12 links)"},
        {"nvlink_lat", "0.5e-6", "GPU-to-NVSwitch latency, s"},
        {"nic_bw", "25e9", "GPU NIC bandwidth, bytes/s (200 Gb/s HDR InfiniBand)"},
        {"nic_lat", "0.5e-6", "latency of every network link, s"},
        {"leaf_ports", "20", "nodes per leaf switch (down ports of a 40-port leaf, half up)"},
        {"taper", "1", "spine taper T (T:1): each leaf uplink carries its down links' sum / T"}}},
      {"host-shm", "host-shm:N", "N processes of one CPU host exchanging through shared memory",
       {{"cores", "N", "CPU cores; with more processes than cores each gets cores/N of one"},
        {"bw", "6e9", "copy bandwidth of one process on its own core, bytes/s"},
        {"mem_bw", "20e9", "memory bandwidth all copies share, bytes/s (a dual-channel DDR4 desktop)"},
        {"lat", "0.25e-6", "per-link latency, s (two links per route) when not oversubscribed"}}},
      {"dragonfly", "dragonfly:G", "G groups of routers linked all to all, every pair of groups by global links",
       {{"routers", "32", "routers a group (a Slingshot group: 32 switches)"},
        {"ranks", "16", "ranks a router (16 endpoint ports of a 64-port switch)"},
        {"global", "16", "global ports a router (a = 2p = 2h balance; at most routers x global + 1 groups)"},
        {"bw", "25e9", "rank-to-router bandwidth, bytes/s (a 200 Gb/s port)"},
        {"lat", "0.35e-6", "rank-to-router latency, s (NIC and one switch traversal)"},
        {"local_bw", "25e9", "router-to-router bandwidth in a group, bytes/s"},
        {"local_lat", "0.35e-6", "router-to-router latency in a group, s (copper and a switch traversal)"},
        {"global_bw", "25e9", "bandwidth of one global port, bytes/s (trunked ports add up)"},
        {"global_lat", "0.5e-6", "global link latency, s (tens of metres of optical cable and a switch)"}}},
      {"dgx-a100", "dgx-a100", "DGX A100 nodes: 8 A100 on NVSwitch, one HDR NIC a GPU (nvswitch's fabric)",
       nvswitch_system_parameters("300e9", "GPU-to-NVSwitch bandwidth, bytes/s (12 NVLink 3 x 25 GB/s)",
                                  {"gpu_mem_bw", "2039e9", "GPU memory bandwidth, bytes/s (A100 80GB); gamma = 3 / it"}, "ib200")},
      {"dgx-h100", "dgx-h100", "DGX H100 nodes: 8 H100 on NVSwitch, one NDR NIC a GPU; NVLS not modelled",
       nvswitch_system_parameters("450e9", "GPU-to-NVSwitch bandwidth, bytes/s (18 NVLink 4 x 25 GB/s)",
                                  {"gpu_mem_bw", "3.35e12", "GPU memory bandwidth, bytes/s (H100 SXM); gamma = 3 / it"}, "ib400")},
      {"hgx-h100", "hgx-h100", "an HGX H100 8-GPU board's server: as dgx-h100",
       nvswitch_system_parameters("450e9", "GPU-to-NVSwitch bandwidth, bytes/s (18 NVLink 4 x 25 GB/s)",
                                  {"gpu_mem_bw", "3.35e12", "GPU memory bandwidth, bytes/s (H100 SXM); gamma = 3 / it"}, "ib400")},
      {"dgx1-v100", "dgx1-v100", "DGX-1 (V100) nodes: NVLink 2 hybrid cube-mesh, PCIe 3.0 tree, 4 EDR NICs",
       cluster_parameters("ib100", {{"nvlink_bw", "25e9", "one NVLink 2 link, bytes/s (pairs with two: twice)"},
                                    {"nvlink_lat", "0.5e-6", "NVLink latency, s"},
                                    {"pcie_bw", "15.75e9", "PCIe 3.0 x16 bandwidth, bytes/s"},
                                    {"pcie_lat", "0.5e-6", "PCIe link latency, s"},
                                    {"cpu_bw", "38.4e9", "socket-to-socket bandwidth, bytes/s (2 QPI x 9.6 GT/s)"},
                                    {"cpu_lat", "0.5e-6", "socket-to-socket latency, s"},
                                    {"gpu_mem_bw", "900e9", "GPU memory bandwidth, bytes/s (V100 SXM2); gamma = 3 / it"}})},
      {"pcie-box", "pcie-box", "GPUs under PCIe switches, peer-to-peer or staged through host memory",
       cluster_parameters("roce100", {{"switches", "2", "PCIe switches (or root ports) a node"},
                                      {"gpus_per_switch", "4", "GPUs under each"},
                                      {"p2p", "on", "on: GPU to GPU through the switches; off: through host memory"},
                                      {"gen", "4", "PCIe generation of the x16 links: 3, 4 or 5"},
                                      {"bw", "(gen)", "GPU link bandwidth, bytes/s"},
                                      {"uplink_bw", "(gen)", "switch uplink bandwidth, bytes/s"},
                                      {"lat", "0.5e-6", "PCIe link latency, s"},
                                      {"mem_bw", "204.8e9", "host memory bandwidth, bytes/s (p2p=off)"},
                                      {"gpu_mem_bw", "1008e9", "GPU memory bandwidth, bytes/s (RTX 4090); gamma = 3 / it"}})},
  };
  return catalog;
}


std::string preset_usages() {
  std::vector<std::string_view> usages;
  for (const PresetInfo& info : preset_catalog()) usages.push_back(info.usage);
  return fmt::format("{}", fmt::join(usages, ", "));
}

std::string describe_presets() {
  std::string text = "Presets (NAME[:SIZE][,key=value...]; bandwidths in bytes/s per direction, latencies in s):\n";
  for (const PresetInfo& info : preset_catalog()) {
    text += fmt::format("  {:<18} {}\n", info.usage, info.summary);
    for (const PresetParameter& parameter : info.parameters)
      text += fmt::format("      {:<16} {:<8} {}\n", parameter.key, parameter.default_value, parameter.meaning);
  }
  return text;
}

namespace {

// A preset's parameters are checked one by one, but some links are derived from several of them
// (a fat-tree uplink carries leaf_ports x nic_bw; host-shm shares bw among cores): every link must
// still lie in the physical ranges, or a prediction could overflow.
void check_derived_links(const Topology& topology, const std::string& preset) {
  for (int id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    const std::string where = fmt::format("topology preset '{}': the link {} -> {}", io::printable(preset),
                                          io::printable(topology.node(link.from).name), io::printable(topology.node(link.to).name));
    if (const auto problem = io::number_problem(link.bandwidth, ranges::bandwidth))
      throw std::invalid_argument(fmt::format("{} gets a bandwidth of {:g} B/s from the parameters: {}; change them", where,
                                              link.bandwidth, *problem));
    if (const auto problem = io::number_problem(link.latency, ranges::latency))
      throw std::invalid_argument(fmt::format("{} gets a latency of {:g} s from the parameters: {}; change them", where,
                                              link.latency, *problem));
  }
}

}  // namespace

Topology make_preset_topology(std::string_view preset) {
  const std::string text = trim(preset);
  std::vector<std::string> pieces;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    pieces.push_back(trim(std::string_view(text).substr(start, comma == std::string::npos ? comma : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const std::size_t colon = pieces.front().find(':');
  const std::string name = trim(pieces.front().substr(0, colon));
  const std::string size = colon == std::string::npos ? std::string() : trim(pieces.front().substr(colon + 1));
  const std::vector<PresetInfo>& catalog = preset_catalog();
  std::size_t index = 0;
  while (index < catalog.size() && catalog[index].name != name) ++index;
  if (index == catalog.size())
    throw std::invalid_argument(
        fmt::format("unknown topology preset '{}'; valid presets: {} (each takes optional ,key=value parameters)",
                    io::printable(name), preset_usages()));
  std::map<std::string, std::string> values;
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    const std::size_t separator = pieces[i].find_first_of("=:");
    const std::string key = trim(pieces[i].substr(0, separator));
    if (separator == std::string::npos || key.empty())
      throw std::invalid_argument(
          fmt::format("topology preset '{}': parameter '{}' must be written key=value, e.g. bw=25e9", io::printable(text),
                      io::printable(pieces[i])));
    if (!values.emplace(key, trim(pieces[i].substr(separator + 1))).second)
      throw std::invalid_argument(fmt::format("topology preset '{}': parameter '{}' is given twice", io::printable(text),
                                                  io::printable(key)));
  }
  const PresetArguments arguments(catalog[index], text, size, std::move(values));
  Topology topology = builders[index](arguments);
  topology.validate();
  check_derived_links(topology, text);
  return topology;
}

std::string preset_for_gpus(int gpus, bool peer_access_everywhere) {
  if (gpus < 2) throw std::invalid_argument(fmt::format("a GPU topology needs at least 2 GPUs, not {}", gpus));
  return peer_access_everywhere ? fmt::format("fully-connected:{}", gpus)
                                : fmt::format("pcie-tree,switches={},gpus_per_switch=1", gpus);
}

}  // namespace ringlab
