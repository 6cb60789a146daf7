// An explicit schedule's ops packed step by step, for a model that walks every rank step by step.
//
// A Schedule keeps each rank's steps, and each step's ops, in vectors of their own: for
// halving_doubling at N = 65536 about 180 MB in 2 million small blocks, whose walk step by step
// over the ranks waits on a cache miss per block. Packed here (all ranks' ops of step 0, then of
// step 1, ...; 16 bytes an op, one index per rank and step), the same walk streams through two
// arrays. Packing costs one walk of the schedule, so a caller pricing one schedule at many sizes
// packs it once (ClosedFormModel::prepare).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "collectives/schedule.hpp"

namespace ringlab::simulator {

struct CompactOp {
  std::uint32_t first_chunk = 0;
  std::uint32_t chunk_count = 0;
  std::int32_t peer = 0;
  OpKind kind = OpKind::send;
};

class CompactSchedule {
 public:
  // The largest ranks x steps packed by default (an index of 4 bytes each: 256 MiB).
  static constexpr std::size_t default_max_slots = std::size_t{1} << 26;

  // Nothing for a circulant schedule (its template is already small), for more than max_slots
  // ranks x steps, or for chunk indices or op counts beyond 32 bits. Throws std::invalid_argument,
  // naming the rank, step and op, for an op whose peer or chunk range does not exist (as
  // check_schedule does).
  static std::optional<CompactSchedule> of(const Schedule& schedule, std::size_t max_slots = default_max_slots);

  int nranks() const { return nranks_; }
  int num_steps() const { return nsteps_; }
  // Every rank's ops in every step are rank 0's in number, kinds and chunk counts, in the same
  // order, and none is to the rank itself (halving_doubling and recursive_doubling at N a power
  // of two, an explicit ring): with equal chunks on a network where every pair of ranks costs
  // alike, every rank then runs alike (ClosedFormModel::predict prices rank 0 alone).
  bool ranks_alike_in_shape() const { return ranks_alike_in_shape_; }
  std::span<const CompactOp> ops(int step, int rank) const {
    const std::size_t slot = static_cast<std::size_t>(step) * static_cast<std::size_t>(nranks_) + static_cast<std::size_t>(rank);
    return {ops_.data() + starts_[slot], ops_.data() + starts_[slot + 1]};
  }

 private:
  bool shapes_alike() const;

  int nranks_ = 0;
  int nsteps_ = 0;
  std::vector<CompactOp> ops_;
  std::vector<std::uint32_t> starts_;  // [step * nranks + rank]: its first op; one more at the end
  bool ranks_alike_in_shape_ = false;
};

}  // namespace ringlab::simulator
