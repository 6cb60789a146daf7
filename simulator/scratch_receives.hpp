// The executor's step plan (collectives/step_plan.hpp) of each rank's steps, for the models:
// which receive pieces land in scratch (copied in as they arrive and combined into the output
// only once the step's sends that read those elements have completed, where another piece is
// combined as it arrives), and which reducing pieces find their left operand in the output (a
// reduction in place, a = a (op) b) rather than in the input (out of place, out = in (op) b).
// This keeps what
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

  // The plan of `rank`'s next step, given its ops (peers resolved) in the order the schedule lists
  // them: its receives are one per receive piece, receive ops in order and each op's pieces in
  // order (the order the executor posts them). Records the step's writes. Valid until the next call.
  const StepPlan& next_step(int rank, std::span<const Op> ops);

 private:
  PieceCut cut_;
  std::vector<ElementCoverage> in_output_;  // [rank]
  StepPlan plan_;                           // next_step's, refilled each step
};

}  // namespace ringlab::simulator
