// MPICH's collective-selection file from a ringlab selection table: the all-reduce rules of a
// `ringlab tune` table written as the JSON decision tree MPICH 4.x reads from
// MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE, so MPI_Allreduce itself runs the tuned choice per
// communicator size and message size (docs/bench.md, "MPICH's selection file").
//
// MPICH has three of ringlab's all-reduce algorithms: recursive_doubling
// (MPIR_Allreduce_intra_recursive_doubling), halving_doubling (Rabenseifner,
// MPIR_Allreduce_intra_reduce_scatter_allgather) and ring (MPIR_Allreduce_allcomm_nb running
// MPIR_Iallreduce_intra_tsp_ring, MPICH 4.0's only ring). Where MPICH itself could not run the
// choice (a non-commutative op; a count below the largest power of two <= the communicator size)
// the file falls back to recursive doubling, as MPICH's own file does.
//
// MPICH reads one tree for every collective and aborts on a collective it finds no rule for, so
// the file also holds every other collective: copied from `base` (the user's MPICH tree, e.g.
// maint/tuning/coll/mpir/generic.json of their MPICH source) when given, else one general
// algorithm each (the one MPICH's own tree picks for large messages).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/selection_table.hpp"

namespace ringlab {

// ring, recursive_doubling, halving_doubling.
const std::vector<std::string>& mpich_allreduce_algorithms();
bool has_mpich_allreduce(std::string_view algorithm);

// Throws std::invalid_argument when the table has no all-reduce rule, a rule's algorithm is not
// one of mpich_allreduce_algorithms() (naming it), a size boundary does not fit MPICH's int
// (2 GiB), or `base` is not an object of objects.
nlohmann::ordered_json to_mpich_selection(const SelectionTable& table, const nlohmann::ordered_json* base = nullptr);

}  // namespace ringlab
