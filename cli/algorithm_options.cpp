#include "cli/algorithm_options.hpp"

#include <stdexcept>

#include "topology/rank_groups.hpp"

namespace ringlab::cli {

void add_algorithm_options(CLI::App& command, AlgorithmOptions& options) {
  command.add_option("--root", options.root, "Root rank (parameter_server, broadcast)")->capture_default_str();
  command.add_option("--shards", options.shards, "parameter_server shards k (k = N: direct RS + AG)")->capture_default_str();
  command.add_option("--group-size", options.group_size,
                     "hierarchical: ranks per group (0: the topology's ranks per node, else the largest divisor <= sqrt N); "
                     "nccl_ring, nccl_tree: ranks per node (0: the topology's, else one node)")
      ->capture_default_str();
  command.add_option("--channels", options.channels, "nccl_ring: channels C, each a ring over its own rank order (0: 24)")
      ->capture_default_str();
  command.add_option("--pipeline", options.pipeline,
                     "nccl_ring: slices per channel (0: 1); nccl_tree: segments per tree (0: 8)")
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
}

AlgorithmOptions with_topology_groups(AlgorithmOptions options, const Topology& topology) {
  if (options.group_size == 0) options.group_size = ranks_per_node(topology);
  return options;
}

}  // namespace ringlab::cli
