#include "collectives/step_plan.hpp"

#include <algorithm>
#include <utility>

namespace ringlab {
namespace {

// Whether a piece reads the output, completing it there when it lies partly in the input (rules 2, 3).
bool reads_output(ElementCoverage& in_output, const Piece& piece, std::vector<ElementCoverage::Range>& completions) {
  if (!in_output.touches(piece.first, piece.last())) return false;
  for (const ElementCoverage::Range& gap : in_output.gaps(piece.first, piece.last())) completions.push_back(gap);
  in_output.add(piece.first, piece.last());
  return true;
}

// The elements two receive pieces share (pieces of one op never overlap, so two different ops'),
// from a sweep over the pieces' ends.
ElementCoverage shared_by_receives(const std::vector<PlannedPiece>& receives) {
  std::vector<std::pair<std::int64_t, int>> ends;  // (element, +1 at a first, -1 at a last); -1 first on ties
  ends.reserve(2 * receives.size());
  for (const PlannedPiece& receive : receives) {
    ends.emplace_back(receive.piece.first, 1);
    ends.emplace_back(receive.piece.last(), -1);
  }
  std::sort(ends.begin(), ends.end());
  ElementCoverage shared;
  int depth = 0;
  std::int64_t shared_since = 0;
  for (const auto& [element, change] : ends) {
    const int before = depth;
    depth += change;
    if (before < 2 && depth >= 2) shared_since = element;
    if (before >= 2 && depth < 2 && element > shared_since) shared.add(shared_since, element);
  }
  return shared;
}

}  // namespace

void plan_step(std::span<const Op> ops, const PieceCut& cut, ElementCoverage& in_output,
               const CombinesOnReceive& combines_on_receive, StepPlan& plan) {
  plan.sends.clear();
  plan.receives.clear();
  plan.completions.clear();
  plan.scratch_elements = 0;
  for (const Op& op : ops) {  // rule 1
    plan.cut_pieces.clear();
    append_pieces(plan.cut_pieces, op.chunks, cut.count, cut.nchunks, cut.piece_elements);
    for (const Piece& piece : plan.cut_pieces)
      (op.kind == OpKind::send ? plan.sends : plan.receives).push_back({piece, op.kind, op.peer, false, false, 0});
  }
  ElementCoverage sent_from_output;  // rule 2
  for (PlannedPiece& send : plan.sends) {
    send.reads_output = reads_output(in_output, send.piece, plan.completions);
    if (send.reads_output) sent_from_output.add(send.piece.first, send.piece.last());
  }
  for (PlannedPiece& receive : plan.receives)  // rule 3
    if (receive.kind == OpKind::recv_reduce) receive.reads_output = reads_output(in_output, receive.piece, plan.completions);
  const ElementCoverage shared = shared_by_receives(plan.receives);  // rule 4
  for (PlannedPiece& receive : plan.receives) {
    const Piece& piece = receive.piece;
    receive.to_scratch = sent_from_output.touches(piece.first, piece.last()) || shared.touches(piece.first, piece.last()) ||
                         (receive.kind == OpKind::recv_reduce && !combines_on_receive(receive.peer));
    if (!receive.to_scratch) continue;
    receive.scratch_first = plan.scratch_elements;
    plan.scratch_elements += piece.count;
  }
}

}  // namespace ringlab
