// The step plan: what one rank does with one step's ops, decided before anything is posted. The
// executor runs it (Executor::run) and the flow-level model prices it (simulator/flow_level.cpp),
// so the two cannot drift apart. The rule (schedule.hpp gives the semantics it keeps):
//   1. each op's chunks are cut into pieces of at most piece_elements, each element range on its
//      own (append_pieces);
//   2. each send piece reads the output when the output holds any of its elements (a piece that
//      lies partly in the input is first completed in the output), else the input;
//   3. each reducing receive piece finds its left operand the same way;
//   4. a receive piece lands in scratch, to be combined once the step's sends of its elements have
//      completed, when a send piece that reads the output or a piece of another receive shares an
//      element with it, or when it reduces and the backend cannot combine on receive from its
//      peer; every other receive lands in the output, a reducing one combined as it arrives.
// The rank's record of which elements' current value is in the output (in_output) is the plan's
// one input besides the ops: every element in place, none out of place until a step writes it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "collectives/element_coverage.hpp"
#include "collectives/schedule.hpp"

namespace ringlab {

// How ops are cut into pieces: count elements in nchunks chunks, pieces of at most piece_elements (>= 1).
struct PieceCut {
  std::int64_t count = 0;
  std::int64_t nchunks = 1;
  std::int64_t piece_elements = 1;
};

struct PlannedPiece {
  Piece piece;
  OpKind kind = OpKind::send;
  int peer = 0;
  // A send: it reads the output (else the input). A reducing receive: its left operand is there.
  bool reads_output = false;
  // A receive: it lands in scratch (rule 4), else in the output.
  bool to_scratch = false;
  // A receive into scratch: its first element there; the step's scratch receives lie one after
  // another in the order they are posted.
  std::int64_t scratch_first = 0;
};

struct StepPlan {
  std::vector<PlannedPiece> sends;     // op by op in schedule order, each op's pieces in element order
  std::vector<PlannedPiece> receives;  // likewise: the order they are posted and waited for
  // Copied from the input into the output before anything is posted: the parts of pieces read
  // from the output (rules 2 and 3) that were still in the input.
  std::vector<ElementCoverage::Range> completions;
  std::int64_t scratch_elements = 0;  // the scratch the step's receives into scratch take
  std::vector<Piece> cut_pieces;  // plan_step's working storage: one op's pieces
};

// Whether the backend combines a reducing receive from `peer` as it arrives.
using CombinesOnReceive = std::function<bool(int peer)>;

// Plans one step of one rank (ops with their peers resolved) into `plan`, which it clears first:
// a plan kept from step to step reuses its vectors, so a call's steps allocate only where one
// is larger than those before. Adds the completions to in_output; the caller adds each receive
// piece once it is in the output.
void plan_step(std::span<const Op> ops, const PieceCut& cut, ElementCoverage& in_output,
               const CombinesOnReceive& combines_on_receive, StepPlan& plan);

}  // namespace ringlab
