// The ranks of a node: the group size hierarchical all-reduce takes from a topology.
#pragma once

#include "topology/topology.hpp"

namespace ringlab {

// The ranks per node of `topology`, for groups of consecutive ranks: with a declared symmetry of
// two or more digits, the innermost digit's radix (nvswitch:G,nodes:M: G; torus2d:RxC: C, a row;
// dragonfly: the ranks of a router); with one digit, every rank (one node); otherwise the most
// consecutive ranks from rank 0 that share a switch of rank 0 not reaching every rank (a
// calibrated topology: the ranks bound to rank 0's CPU). 0 when none of these says.
int ranks_per_node(const Topology& topology);

}  // namespace ringlab
