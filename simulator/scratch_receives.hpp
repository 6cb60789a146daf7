// The executor's scratch rule (collectives/execute.cpp, Executor::run, steps 1-2) replayed for
// the flow-level model: which receive pieces of a rank's step land in scratch. Such a piece is
// copied into scratch as it arrives and combined into the output only once the step's sends that
// read those elements have completed, where another piece is combined as it arrives.
//
// Per rank it keeps which elements' current value is in the output (the executor's in_output):
// every element in place, none out of place until a step writes it. For one step, in the
// executor's order:
//   1. each send piece reads the output when the output holds any of its elements (a piece split
//      between input and output is completed in the output first), else the input;
//   2. each reducing receive piece finds its left operand the same way;
//   3. a receive piece lands in scratch when a send piece of step 1 that reads the output, or a
//      piece of another receive op of the step, shares an element with it;
//   4. every receive piece's elements are then in the output.
// The executor also sends a reducing receive to scratch when its backend cannot combine on
// receive; the mpi backend's shared-memory transport can, which is what a calibrated topology
// describes, so this rule does not.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "element_coverage.hpp"
#include "placement.hpp"
#include "schedule.hpp"

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
  // Appends the pieces of a chunk range, cut as the executor cuts them (append_pieces).
  void append_pieces_of(ChunkRange chunks);
  // Whether a piece reads the output, completing it there when split (step 1).
  static bool reads_output(ElementCoverage& in_output, const Piece& piece);

  std::int64_t count_;
  std::int64_t nchunks_;
  std::int64_t piece_elements_;
  std::vector<ElementCoverage> in_output_;  // [rank]
  std::vector<Piece> pieces_;               // scratch for next_step
};

}  // namespace ringlab::simulator
