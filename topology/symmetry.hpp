// The check that a topology's declared rank symmetry (RankSymmetry, topology.hpp) holds: what
// lets the simulator price one rank's routes for all of them (simulator/route_costs.hpp).
#pragma once

#include "topology/topology.hpp"

namespace ringlab {

// Whether topology.rank_symmetry() is present and holds: the radices are >= 1 and multiply to the
// endpoint count, and every turn given is a bijection of the nodes that maps rank x's endpoint to
// that of x with the digit turned, keeps node kinds and switch capacities, and maps every directed
// link onto a directed link of the same bandwidth and latency (an automorphism). O(links x log
// degree) per turn.
bool rank_symmetry_holds(const Topology& topology);

}  // namespace ringlab
