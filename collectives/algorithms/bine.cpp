// Bine all-reduce, bandwidth-optimal form (De Sensi et al., "Bine Trees: Enhancing Collective
// Operations by Optimizing Communication Locality", SC 2025): reduce-scatter then all-gather over a
// Bine butterfly, L = log2 p steps each, p = the largest power of two <= N.
// Distances (bine_pairs.hpp): at step s rank r pairs with r + delta(s) (r even) or r - delta(s)
// (r odd) modulo p, delta(s) = the negabinary number of s+1 ones = 1, -1, 3, -5, 11, ...; the
// reduce-scatter runs s = 0 .. L-1 (distance doubling: the largest halves travel the shortest
// distance), the all-gather s = L-1 .. 0. These are Swing's pairs; bine differs from swing in
// which block each rank keeps.
// Blocks: the buffer is cut into p blocks; rank r keeps block nu(r) (bine_block: the Gray code of
// r's negabinary form, digits reversed). At step s, r and its partner hold the same range of 2^(L-s)
// blocks (those sharing the top s bits of nu(r)) and nu(r), nu(partner) differ in bit L-1-s: the
// rank whose nu is smaller keeps the lower half. So every transfer is one contiguous range, the
// reason for the remap (the block order is the order in which the halves are split off), and rank r
// ends the reduce-scatter holding block nu(r) (halving_butterfly).
// Non-powers of two: PowerOfTwoFold (1 step each way), as halving_doubling and swing, and as the
// authors' MPI code folds its remapped all-reduce.
// Latency form: the Bine butterfly on the whole buffer pairs exactly as swing_latency does, so it
// is swing_latency.
// Cost: as halving_doubling and swing, 2*log2(p)*a + 2(p-1)/p*n*b + (p-1)/p*n*g (plus 2a + 2n*b +
// n*g when N is not a power of two).
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/bine_pairs.hpp"

namespace ringlab {

Schedule bine(Collective, int nranks, const AlgorithmOptions&) {
  return halving_butterfly("bine", nranks, &bine_peer, &bine_blocks);
}

}  // namespace ringlab
