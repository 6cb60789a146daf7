// Bruck all-gather (Bruck et al., "Efficient Algorithms for All-to-All Communications in
// Multiport Message-Passing Systems", IEEE TPDS 8(11), 1997), its dual reduce-scatter, and the
// all-reduce made of the two, at any N in K = ceil(log2 N) steps per phase.
// Buffer cut into N blocks; rank r owns block r; offsets are relative to r, mod N.
// All-gather, step k = 0 .. K-1, d = 2^k: r holds offsets [0, d); it sends [0, c) to r - d and
// receives offsets [d, d + c) from r + d, c = min(d, N - d) (only the last step sends fewer than d).
// Reduce-scatter: the dual, steps in reverse: r sends offsets [d, d + c) to r + d and reduces in
// offsets [0, c) from r - d; afterwards r owns block r reduced over all ranks.
// These are nested_intervals with window sizes N, 2^(K-1), ..., 2, 1. interval_paired halves N
// rounding up, which gives the same sizes when N = 2^K or 2^K - 1: there the two schedules are
// equal; at other N bruck's distances stay powers of two. Bruck's final local rotation is not needed: ops name blocks in place.
// Each rank sends N-1 blocks per phase: RS or AG ceil(log2 N)*a + (N-1)/N*n*b (+ (N-1)/N*n*g for
// RS); all-reduce 2*ceil(log2 N)*a + 2(N-1)/N*n*b + (N-1)/N*n*g.
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

Schedule bruck(Collective collective, int nranks, const AlgorithmOptions&) {
  std::vector<int> sizes{nranks};
  for (int distance = (1 << ceil_log2(nranks)) / 2; distance >= 1; distance /= 2) sizes.push_back(distance);
  return nested_intervals("bruck", collective, nranks, sizes);
}

}  // namespace ringlab
