// Which receive pieces of a rank's step the executor lands in scratch, for the flow-level model:
// such a piece is copied into scratch as it arrives and combined into the output only once the
// step's sends that read those elements have completed, where another piece is combined as it
// arrives. The rule is the executor's own step plan (collectives/step_plan.hpp); this keeps what
// the plan reads besides the ops, each rank's record of which elements' current value is in the
// output (the executor's in_output): every element in place, none out of place until a step
// writes it.
// The executor also sends a reducing receive to scratch when its backend cannot combine on
// receive; the mpi backend's shared-memory transport can, which is what a calibrated topology
// describes, so the plan is asked with every peer combining on receive.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "collectives/element_coverage.hpp"
#include "collectives/placement.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_plan.hpp"

namespace ringlab::simulator {

class ScratchReceives {
 public:
  // Pieces of at most piece_elements (>= 1), as the executor cuts them.
  ScratchReceives(int nranks, std::int64_t count, std::int64_t nchunks, std::int64_t piece_elements,
                  Placement placement);

  // The ops of `rank`'s next step (peers resolved), in the order the schedule lists them: sets
  // lands_in_scratch to one flag per receive piece, receive ops in order and each op's pieces in
  // order (the order the executor posts them), and records the step's writes.
  void next_step(int rank, std::span<const Op> ops, std::vector<unsigned char>& lands_in_scratch);

 private:
  PieceCut cut_;
  std::vector<ElementCoverage> in_output_;  // [rank]
  StepPlan plan_;                           // next_step's, refilled each step
};

}  // namespace ringlab::simulator
