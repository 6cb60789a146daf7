// `ringlab topology show PRESET|FILE`: print a topology's summary and routes, or its JSON form.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "presets.hpp"
#include "topology_io.hpp"
#include "topology_summary.hpp"

namespace ringlab::cli {

namespace {
struct TopologyShowArguments {
  std::string topology;
  bool json = false;
  bool routes = false;
};
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
  return [arguments, show] {
    if (!show->parsed()) return 2;
    const Topology topology = load_topology(arguments->topology);
    if (arguments->json)
      write_topology_json(std::cout, topology);
    else
      print_topology_summary(std::cout, topology, arguments->routes ? RouteListing::all : RouteListing::examples);
    return 0;
  };
}

}  // namespace ringlab::cli
