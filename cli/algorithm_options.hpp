// The schedule parameters every command with --algo takes (AlgorithmOptions), registered in one
// place: --root, --shards, --group-size, --inner, --channels, --pipeline.
#pragma once

#include <CLI/CLI.hpp>

#include "collectives/algorithms/algorithm.hpp"
#include "topology/topology.hpp"

namespace ringlab::cli {

void add_algorithm_options(CLI::App& command, AlgorithmOptions& options);

// `options` with --group-size taken from the topology's ranks per node (topology/rank_groups.hpp)
// when it was not given (0) and the topology has one.
AlgorithmOptions with_topology_groups(AlgorithmOptions options, const Topology& topology);

}  // namespace ringlab::cli
