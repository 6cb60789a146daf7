// `ringlab topology show PRESET|FILE`: print a topology's summary and routes, or its JSON form.
#include <fmt/format.h>

#include <iostream>
#include <algorithm>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "io/output_file.hpp"
#include "report/utc_timestamp.hpp"
#include "cli/topology_detect.hpp"
#include "topology/presets.hpp"
#include "cli/time_limit.hpp"
#include "topology/topology_io.hpp"
#include "topology/topology_summary.hpp"

namespace ringlab::cli {

namespace {
struct TopologyShowArguments {
  std::string topology;
  bool json = false;
  bool routes = false;
  double time_limit_seconds = default_time_limit_seconds;  // --routes lists N^2 hops on a ring
};

struct TopologyDetectArguments {
  std::optional<int> ranks;  // not given: one per core
  bool host = false;  // host-shm even when GPUs are found
  std::string json;
  bool force = false;
};

constexpr const char* uncalibrated = "uncalibrated; run ringlab calibrate";

nlohmann::json host_to_json(const DetectedHost& host) {
  nlohmann::json peers = nlohmann::json::array();
  for (const GpuPeer& peer : host.gpu_peers)
    peers.push_back({{"from", peer.from}, {"to", peer.to}, {"access", peer.access},
                     {"performance_rank", peer.performance_rank}});
  nlohmann::json devices = nlohmann::json::array();
  for (const PciDevice& device : host.pci_devices)
    devices.push_back({{"bus_id", device.bus_id},
                       {"vendor_id", fmt::format("{:04x}", device.vendor_id)},
                       {"device_id", fmt::format("{:04x}", device.device_id)},
                       {"class_id", fmt::format("{:04x}", device.class_id)},
                       {"name", device.name}});
  return {{"packages", host.packages},       {"numa_nodes", host.numa_nodes},
          {"cores", host.cores},             {"processing_units", host.processing_units},
          {"memory_bytes", host.memory_bytes}, {"pci_devices", std::move(devices)},
          {"gpus", host.gpus},               {"gpu_list", host.gpu_list},
          {"gpu_peers", peers}};
}

// hwloc's inventory and the CUDA runtime's GPUs, then the topology they imply: with 2 GPUs or
// more (and no --host) the GPUs' (preset_for_gpus), else host-shm for `ranks` processes on its
// cores; the presets' default bandwidths and latency (neither tool measures them), marked
// uncalibrated.
int run_detect(const TopologyDetectArguments& arguments) {
  if (arguments.ranks && *arguments.ranks < 1)
    throw std::invalid_argument(fmt::format("--ranks {} must be at least 1; leave it out for one per core", *arguments.ranks));
  check_output_option(arguments.json, arguments.force, "--json");
  const io::StandardOutputForData data_output(to_standard_output({{"--json", &arguments.json}}));
  const DetectedHost host = detect_host();
  const int cores = host.cores > 0 ? host.cores : std::max(1, host.processing_units);
  const int gpus = static_cast<int>(host.gpu_list.size());
  const bool gpu_topology = gpus >= 2 && !arguments.host;
  if (gpu_topology && arguments.ranks && *arguments.ranks != gpus)
    throw std::invalid_argument(fmt::format("--ranks {} does not match the {} GPUs found; omit --ranks, or pass --host for "
                                            "a topology of CPU processes",
                                            *arguments.ranks, gpus));
  const int ranks = arguments.ranks.value_or(cores);
  const bool peer_access_everywhere = std::all_of(host.gpu_peers.begin(), host.gpu_peers.end(),
                                                  [](const GpuPeer& peer) { return peer.access; });
  const std::string preset = gpu_topology ? preset_for_gpus(gpus, peer_access_everywhere)
                                          : fmt::format("host-shm:{},cores={}", ranks, cores);
  const Topology topology = make_preset_topology(preset);
  fmt::print("# ringlab topology detect (hwloc): {} package(s), {} NUMA node(s), {} core(s), {} processing unit(s), "
             "{:.1f} GiB\n",
             host.packages, host.numa_nodes, host.cores, host.processing_units,
             static_cast<double>(host.memory_bytes) / (1 << 30));
  fmt::print("# PCI devices: {}\n", host.pci_devices.size());
  for (const PciDevice& device : host.pci_devices)
    fmt::print("#   {} class {:04x} vendor {:04x} device {:04x} {}\n", device.bus_id, device.class_id,
               device.vendor_id, device.device_id, device.name);
  fmt::print("# GPUs: {}\n", host.gpus);
  for (const std::string& gpu : host.gpu_list) fmt::print("#   {}\n", gpu);
  for (const GpuPeer& peer : host.gpu_peers)
    fmt::print("#   GPU {} -> GPU {}: peer access {}, performance rank {}\n", peer.from, peer.to,
               peer.access ? "yes" : "no", peer.performance_rank);
  fmt::print("# topology {}: bandwidths and latency are the preset's defaults ({})\n", preset, uncalibrated);
  if (arguments.json.empty()) {
    print_topology_summary(std::cout, topology, RouteListing::examples);
    return 0;
  }
  nlohmann::json document = to_json(topology);
  document["calibration"] = {{"tool", "ringlab topology detect"},
                             {"status", uncalibrated},
                             {"created", report::utc_timestamp()},
                             {"preset", preset},
                             {"host", host_to_json(host)}};
  io::write_json_file(arguments.json, document, 1, data_output.descriptor());
  if (!io::is_standard_output(arguments.json)) fmt::print("# topology written to {}\n", arguments.json);
  return 0;
}
}  // namespace

CommandRunner add_topology_command(CLI::App& app) {
  auto arguments = std::make_shared<TopologyShowArguments>();
  CLI::App* command = app.add_subcommand("topology", "Network topologies: presets and ringlab.topology/1 files");
  command->require_subcommand(1);
  CLI::App* show = command->add_subcommand(
      "show", "Print a topology: endpoints, switches, links, bandwidths, latencies and routes (or its JSON form)");
  show->add_option("topology", arguments->topology,
                   "A ringlab.topology/1 JSON file, or a preset: " + preset_usages() +
                       ", each with optional ,key=value parameters (e.g. switch:8,bw=25e9,lat=1e-6; "
                       "docs/topology-format.md)")
      ->required();
  show->footer(describe_presets());
  show->add_flag("--json", arguments->json, "Write the ringlab.topology/1 JSON document instead of a summary");
  show->add_flag("--routes", arguments->routes,
                 fmt::format("List every route (all pairs up to {} endpoints, else every route from rank 0)",
                             all_pairs_limit));
  add_time_limit_option(*show, arguments->time_limit_seconds);
  auto detect_arguments = std::make_shared<TopologyDetectArguments>();
  CLI::App* detect = command->add_subcommand(
      "detect", "This machine through hwloc (packages, NUMA nodes, cores, PCI devices) and, in CUDA builds, the "
                "CUDA runtime (GPUs, peer access): a GPU topology with 2 GPUs or more, else host-shm; bandwidths stay "
                "at the presets' defaults (uncalibrated; run ringlab calibrate)");
  detect->add_option("--ranks", detect_arguments->ranks, "Processes the topology models (default: one per core)");
  detect->add_flag("--host", detect_arguments->host,
                   "Model the CPU processes (host-shm) even when two or more GPUs are found");
  detect->add_option("--json", detect_arguments->json, "Write the ringlab.topology/1 file here (- = standard output)")
      ->check(output_path());
  detect->add_flag("--force", detect_arguments->force, "Overwrite an existing --json file");
  return [arguments, show, detect, detect_arguments] {
    if (detect->parsed()) return run_detect(*detect_arguments);
    if (!show->parsed()) return 2;
    const TimeLimit time_limit("topology show", arguments->time_limit_seconds);
    const Topology topology = load_topology(arguments->topology);
    if (arguments->json)
      write_topology_json(std::cout, topology);
    else
      print_topology_summary(std::cout, topology, arguments->routes ? RouteListing::all : RouteListing::examples);
    return 0;
  };
}

}  // namespace ringlab::cli
