// The order and the prefetches of a walk over every rank of an explicit schedule, step by step
// (the closed form's walk and its alike check; internal to the model).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "collectives/schedule.hpp"
#include "simulator/schedule_walk.hpp"

namespace ringlab::simulator {

// Walks of an explicit schedule go in blocks of ranks, step by step within a block and rank by
// rank within a step: a block's programs stay in the cache across its steps, where a walk step by
// step over all N ranks would miss the cache on each separately allocated program once per step.
constexpr int ranks_per_block = 256;
constexpr int prefetch_distance = 32;  // items ahead

// The ops of the item `distance` after (rank, step) in that order (wrapping from a block's last
// rank into the next step), or nothing past the walk's end_step. Always inlined: out of line,
// it cost halving_doubling unprepared at N = 65535 55.4 -> 50.3 ms (then called twice per item).
[[gnu::always_inline]] inline const Step* step_ahead(const Schedule& schedule, int rank, std::size_t step,
                                                     int distance, int block, int block_end, std::size_t end_step) {
  int ahead_rank = rank + distance;
  if (ahead_rank >= block_end) {
    ahead_rank -= block_end - block;
    ++step;
  }
  if (step >= end_step || ahead_rank >= block_end) return nullptr;
  const std::vector<Step>& steps = program_of(schedule, ahead_rank).steps;
  return step < steps.size() ? steps.data() + step : nullptr;
}

// Prefetches for the walk of one block of ranks, item (rank, step) after item: the step header
// (where the ops are) of the item 2d ahead, and the ops of the item d ahead, whose header was
// fetched d items ago; both ends of the ops, which may straddle two cache lines. Without them the
// walk waits on a miss for each (halving_doubling at N = 65536: 116 -> 77 ms, docs/simulator.md).
// The headers fetched wait in a ring of d until they are d ahead, so each item looks one header
// up, not two. Always inlined: GCC counts a prefetch as no side effect, so it drops every call to
// a function that only prefetches.
class BlockPrefetcher {
 public:
  // Primes the ring with the items d to 2d - 1 of the block's walk, which starts at (block, step).
  [[gnu::always_inline]] BlockPrefetcher(const Schedule& schedule, int block, int block_end, std::size_t step,
                                         std::size_t end_step)
      : schedule_(schedule), block_(block), block_end_(block_end), end_step_(end_step) {
    for (int i = 0; i < prefetch_distance; ++i)
      ahead_[static_cast<std::size_t>(i)] = step_ahead(schedule, block, step, prefetch_distance + i, block, block_end, end_step);
  }
  // Call once per item, in the walk's order.
  [[gnu::always_inline]] void at(int rank, std::size_t step) {
    const Step*& slot = ahead_[next_];
    next_ = next_ + 1 == ahead_.size() ? 0 : next_ + 1;
    if (const Step* near = slot; near != nullptr && !near->empty()) {
      __builtin_prefetch(near->data());
      __builtin_prefetch(reinterpret_cast<const char*>(near->data() + near->size()) - 1);
    }
    slot = step_ahead(schedule_, rank, step, 2 * prefetch_distance, block_, block_end_, end_step_);
    if (slot != nullptr) __builtin_prefetch(slot);
  }

 private:
  const Schedule& schedule_;
  int block_;
  int block_end_;
  std::size_t end_step_;
  std::array<const Step*, prefetch_distance> ahead_{};  // [item mod d]: the header d items ahead
  std::size_t next_ = 0;
};

}  // namespace ringlab::simulator
