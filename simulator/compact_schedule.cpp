#include "simulator/compact_schedule.hpp"

#include <limits>

#include "simulator/schedule_walk.hpp"

namespace ringlab::simulator {

std::optional<CompactSchedule> CompactSchedule::of(const Schedule& schedule, std::size_t max_slots) {
  constexpr auto max_index = static_cast<std::size_t>(std::numeric_limits<std::uint32_t>::max());
  if (schedule.circulant || schedule.nranks < 1 || schedule.programs.size() != static_cast<std::size_t>(schedule.nranks) ||
      schedule.nchunks < 1 || static_cast<std::uint64_t>(schedule.nchunks) * 2 > max_index)
    return std::nullopt;
  const auto nranks = static_cast<std::size_t>(schedule.nranks);
  const auto nsteps = static_cast<std::size_t>(schedule.num_steps());
  if (nsteps > max_slots / nranks) return std::nullopt;
  CompactSchedule compact;
  compact.nranks_ = schedule.nranks;
  compact.nsteps_ = static_cast<int>(nsteps);
  // Two walks rank by rank (each rank's blocks lie together in memory): count each slot's ops,
  // then place them; the second walk checks them.
  std::vector<std::uint32_t>& starts = compact.starts_;
  starts.assign(nsteps * nranks + 1, 0);
  std::size_t total = 0;
  for (std::size_t rank = 0; rank < nranks; ++rank) {
    const std::vector<Step>& steps = schedule.programs[rank].steps;
    for (std::size_t step = 0; step < steps.size(); ++step) {
      starts[step * nranks + rank] = static_cast<std::uint32_t>(steps[step].size());
      total += steps[step].size();
    }
  }
  if (total > max_index) return std::nullopt;
  std::uint32_t next = 0;
  for (std::uint32_t& start : starts) {  // counts -> first indices
    const std::uint32_t count = start;
    start = next;
    next += count;
  }
  compact.ops_.resize(total);
  for (std::size_t rank = 0; rank < nranks; ++rank) {
    const std::vector<Step>& steps = schedule.programs[rank].steps;
    for (std::size_t step = 0; step < steps.size(); ++step) {
      CompactOp* placed = compact.ops_.data() + starts[step * nranks + rank];
      for (const Op& op : steps[step]) {
        if (!op_in_range(schedule, static_cast<int>(rank), op))
          throw_op_out_of_range(schedule, static_cast<int>(rank), static_cast<int>(step), op);
        *placed++ = {static_cast<std::uint32_t>(op.chunks.begin), static_cast<std::uint32_t>(op.chunks.size()), op.peer,
                     op.kind};
      }
    }
  }
  compact.ranks_alike_in_shape_ = compact.shapes_alike();
  return compact;
}

bool CompactSchedule::shapes_alike() const {
  for (int step = 0; step < nsteps_; ++step) {
    const std::span<const CompactOp> first = ops(step, 0);
    for (int rank = 0; rank < nranks_; ++rank) {
      const std::span<const CompactOp> own = ops(step, rank);
      if (own.size() != first.size()) return false;
      for (std::size_t i = 0; i < own.size(); ++i)
        if (own[i].kind != first[i].kind || own[i].chunk_count != first[i].chunk_count || own[i].peer == rank)
          return false;
    }
  }
  return nranks_ > 0;
}

}  // namespace ringlab::simulator
