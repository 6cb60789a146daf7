// The schedule parameters every command with --algo takes (AlgorithmOptions), registered in one
// place: --root, --shards, --group-size, --inner, --channels, --pipeline, --node-rings.
#pragma once

#include <CLI/CLI.hpp>

#include "collectives/algorithms/algorithm.hpp"
#include "topology/topology.hpp"

namespace ringlab::cli {

void add_algorithm_options(CLI::App& command, AlgorithmOptions& options);

// `options` with --group-size taken from the topology's ranks per node (topology/rank_groups.hpp)
// when it was not given (0) and the topology has one, and, without --node-rings, nccl_ring's rings
// over the node's direct links (topology/nvlink_rings.hpp) with their channel count unless
// --channels was given; `notes` (when given) gets which rings.
AlgorithmOptions with_topology_groups(AlgorithmOptions options, const Topology& topology,
                                      std::vector<std::string>* notes = nullptr);

}  // namespace ringlab::cli
