#include "simulator/scratch_receives.hpp"

#include <algorithm>

namespace ringlab::simulator {

ScratchReceives::ScratchReceives(int nranks, std::int64_t count, std::int64_t nchunks, std::int64_t piece_elements,
                                 Placement placement)
    : cut_{count, nchunks, std::max<std::int64_t>(1, piece_elements)},
      in_output_(static_cast<std::size_t>(std::max(nranks, 0))) {
  if (placement == Placement::in_place && count > 0)
    for (ElementCoverage& coverage : in_output_) coverage.add(0, count);
}

const StepPlan& ScratchReceives::next_step(int rank, std::span<const Op> ops) {
  static const CombinesOnReceive every_peer = [](int /*peer*/) { return true; };
  ElementCoverage& in_output = in_output_[static_cast<std::size_t>(rank)];
  plan_step(ops, cut_, in_output, every_peer, plan_);
  for (const PlannedPiece& receive : plan_.receives) in_output.add(receive.piece.first, receive.piece.last());
  return plan_;
}

}  // namespace ringlab::simulator
