// Bruck with a bounded step: reduce-scatter, all-gather and all-reduce at any N in which no rank
// sends more than B = --step-blocks of the N blocks in one step, the idea of NCCL's PAT (a
// Bruck-like schedule whose per-step buffer is bounded); this is not PAT's own schedule.
// Buffer cut into N blocks; rank r owns block r; offsets relative to r, mod N (nested_intervals).
// All-gather window sizes, grown from 1: s' = min(2s, s + B, N), so the window doubles while
// s <= B (Bruck's steps, each sending s blocks) and then grows by B a step (each sending B
// blocks, to the rank s ahead); the reduce-scatter runs the windows in reverse. B >= N/2 gives
// bruck's windows exactly; B = 1 sends one block a step in N-1 steps.
// Steps per phase: d + ceil((N - min(2^d, N)) / B), d = min(floor(log2 B) + 1, ceil(log2 N)).
// Each rank sends N-1 blocks per phase: RS or AG (steps)*a + (N-1)/N*n*b (+ (N-1)/N*n*g for RS);
// all-reduce twice the steps, 2(N-1)/N*n*b + (N-1)/N*n*g.
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

Schedule bruck_bounded(Collective collective, int nranks, const AlgorithmOptions& options) {
  if (options.step_blocks < 1)
    throw std::invalid_argument(fmt::format("--step-blocks {}: bruck_bounded sends at least 1 block a step; give 1 or more",
                                            options.step_blocks));
  std::vector<int> sizes{1};
  while (sizes.back() < nranks) {
    const int window = sizes.back();
    sizes.push_back(static_cast<int>(std::min<std::int64_t>({std::int64_t{2} * window,
                                                             std::int64_t{window} + options.step_blocks, nranks})));
  }
  std::reverse(sizes.begin(), sizes.end());  // N, ..., 1: nested_intervals' order
  return nested_intervals("bruck_bounded", collective, nranks, sizes);
}

}  // namespace ringlab
