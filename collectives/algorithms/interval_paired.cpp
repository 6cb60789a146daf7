// Interval-paired ring (HAN et al., "GPU Parallel Method for Deep Learning Image Classification",
// Computer Engineering 49(1), 2023), in the circulant form this project defines; see
// docs/interval_paired.md for the interpretation of the paper's abstract.
//
// Ranks sit on a ring and pair with the rank at an interval that halves each round. Buffer cut
// into N blocks; offsets are relative to rank r, mod N. Sizes s_0 = N, s_{k+1} = ceil(s_k / 2)
// until 1 (ceil(log2 N) rounds).
// Reduce-scatter round k: r sends its blocks at offsets [s_{k+1}, s_k) to r + s_{k+1} and reduces
// in, from r - s_{k+1}, the partial sums of its offsets [0, s_k - s_{k+1}). Afterwards r owns
// block r reduced over all ranks.
// All-gather: the mirror image, rounds in reverse: r sends offsets [0, s_k - s_{k+1}) to
// r - s_{k+1} and receives offsets [s_{k+1}, s_k) from r + s_{k+1}.
// Each rank sends sum_k (s_k - s_{k+1}) = N-1 blocks per phase, so all-reduce costs
// 2*ceil(log2 N)*a + 2(N-1)/N*n*b + (N-1)/N*n*g: the ring's bandwidth with log-many latencies.
// The rounds are nested_intervals' (registry.cpp), which bruck shares with other sizes.
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {
std::vector<int> interval_sizes(int nranks) {
  std::vector<int> sizes{nranks};
  while (sizes.back() > 1) sizes.push_back((sizes.back() + 1) / 2);
  return sizes;
}
}  // namespace

Schedule interval_paired(Collective collective, int nranks, const AlgorithmOptions&) {
  return nested_intervals("interval_paired", collective, nranks, interval_sizes(nranks));
}

}  // namespace ringlab
