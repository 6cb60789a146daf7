#include "cli/algorithm_options.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cli/cli_util.hpp"
#include "topology/nvlink_rings.hpp"
#include "topology/rank_groups.hpp"

namespace ringlab::cli {

void add_algorithm_options(CLI::App& command, AlgorithmOptions& options) {
  command.add_option("--root", options.root, "Root rank (parameter_server, broadcast)")->capture_default_str();
  command.add_option("--shards", options.shards, "parameter_server shards k (k = N: direct RS + AG)")->capture_default_str();
  command.add_option("--group-size", options.group_size,
                     "hierarchical: ranks per group (0: the topology's ranks per node, else the largest divisor <= sqrt N); "
                     "nccl_ring, nccl_tree: ranks per node (0: the topology's, else one node)")
      ->capture_default_str();
  command.add_option("--channels", options.channels,
                     "nccl_ring: channels C, each a ring over its own rank order (0: NCCL's count for the topology's "
                     "rings over direct links, else 24)")
      ->capture_default_str();
  command.add_option("--pipeline", options.pipeline,
                     "nccl_ring: slices per channel (0: 1); nccl_tree, double_binary_tree: segments per tree (0: 8, 4)")
      ->capture_default_str();
  command.add_option("--step-blocks", options.step_blocks,
                     "bruck_bounded: the most of the N blocks a rank sends in one step (>= 1)")
      ->capture_default_str();
  command
      .add_option_function<std::string>(
          "--inner",
          [&options](const std::string& name) {
            try {
              options.inner = find_algorithm(name).name;  // the registry's name outlives the options
            } catch (const std::invalid_argument& error) {
              throw CLI::ValidationError("--inner", error.what());
            }
          },
          "hierarchical: the all-reduce algorithm across groups (default ring)");
  command.add_option_function<std::string>(
      "--node-rings",
      [&options](const std::string& text) {
        try {
          options.node_rings = parse_node_rings(text);
        } catch (const std::invalid_argument& error) {
          throw CLI::ValidationError("--node-rings", error.what());
        }
      },
      "nccl_ring: the rings inside a node, local ranks 0 .. G-1 (\"0,3,2,1,5,6,7,4/0,4,7,6,5,1,2,3\"); channel c "
      "follows ring c mod R (default: the topology's rings over direct links, else rank order)");
}

AlgorithmOptions with_topology_groups(AlgorithmOptions options, const Topology& topology,
                                      std::vector<std::string>* notes) {
  if (options.group_size == 0) options.group_size = ranks_per_node(topology);
  if (!options.node_rings.empty()) return options;
  NodeRings rings = nvlink_rings(topology);
  if (notes != nullptr) notes->push_back(fmt::format("nccl_ring: {}", rings.note));
  if (rings.rings.empty()) return options;
  options.node_rings = std::move(rings.rings);
  if (options.channels == 0) options.channels = rings.channels;
  return options;
}

}  // namespace ringlab::cli
