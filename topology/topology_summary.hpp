// A human-readable summary of a topology: counts, link classes, and routes.
#pragma once

#include <iosfwd>

#include "topology/topology.hpp"

namespace ringlab {

// examples: a few routes from rank 0 (to ranks 1, N/2, N-1 and the farthest one).
// all: every ordered pair up to all_pairs_limit endpoints, else every route from rank 0.
enum class RouteListing { examples, all };
inline constexpr int all_pairs_limit = 32;

void print_topology_summary(std::ostream& out, const Topology& topology, RouteListing listing);

}  // namespace ringlab
