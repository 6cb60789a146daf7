#include "scratch_receives.hpp"

#include <algorithm>
#include <utility>

namespace ringlab::simulator {

ScratchReceives::ScratchReceives(int nranks, std::int64_t count, std::int64_t nchunks, std::int64_t piece_elements,
                                 Placement placement)
    : count_(count),
      nchunks_(nchunks),
      piece_elements_(std::max<std::int64_t>(1, piece_elements)),
      in_output_(static_cast<std::size_t>(std::max(nranks, 0))) {
  if (placement == Placement::in_place && count > 0)
    for (ElementCoverage& coverage : in_output_) coverage.add(0, count);
}

void ScratchReceives::append_pieces_of(ChunkRange chunks) {
  append_pieces(pieces_, chunks, count_, nchunks_, piece_elements_);
}

bool ScratchReceives::reads_output(ElementCoverage& in_output, const Piece& piece) {
  if (!in_output.touches(piece.first, piece.last())) return false;
  in_output.add(piece.first, piece.last());  // completed in the output when split
  return true;
}

void ScratchReceives::next_step(int rank, std::span<const Op> ops, std::vector<unsigned char>& lands_in_scratch) {
  ElementCoverage& in_output = in_output_[static_cast<std::size_t>(rank)];
  lands_in_scratch.clear();
  // 1. Send pieces that read the output.
  ElementCoverage sent_from_output;
  for (const Op& op : ops) {
    if (op.kind != OpKind::send) continue;
    pieces_.clear();
    append_pieces_of(op.chunks);
    for (const Piece& piece : pieces_)
      if (reads_output(in_output, piece)) sent_from_output.add(piece.first, piece.last());
  }
  // 2. Reducing receives' left operands; the receive pieces in posting order.
  pieces_.clear();
  for (const Op& op : ops) {
    if (op.kind == OpKind::send) continue;
    const std::size_t first_piece = pieces_.size();
    append_pieces_of(op.chunks);
    if (op.kind == OpKind::recv_reduce)
      for (std::size_t i = first_piece; i < pieces_.size(); ++i) reads_output(in_output, pieces_[i]);
  }
  // 3. Elements two receive pieces share (pieces of one op never overlap, so two different ops'),
  // from a sweep over the pieces' ends, then each piece's verdict.
  std::vector<std::pair<std::int64_t, int>> ends;  // (element, +1 at a first, -1 at a last); -1 first on ties
  ends.reserve(2 * pieces_.size());
  for (const Piece& piece : pieces_) {
    ends.emplace_back(piece.first, 1);
    ends.emplace_back(piece.last(), -1);
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
  for (const Piece& piece : pieces_)
    lands_in_scratch.push_back(sent_from_output.touches(piece.first, piece.last()) ||
                                       shared.touches(piece.first, piece.last())
                                   ? 1
                                   : 0);
  // 4. What the step wrote.
  for (const Piece& piece : pieces_) in_output.add(piece.first, piece.last());
}

}  // namespace ringlab::simulator
