// Swing all-reduce, bandwidth-optimal form (De Sensi et al., NSDI 2024): reduce-scatter then
// all-gather, each over L = log2 p steps with the Swing partners of swing_pairs.hpp, where
// p = the largest power of two <= N.
// Fold (only when N > p): PowerOfTwoFold hands the buffers of N - p ranks to partners (1 step).
// This fold is ringlab's, as in halving_doubling; the paper treats other N differently.
// Buffer cut into p blocks, numbered so that the ranks a rank reaches through steps s .. L-1
// (its group at step s, SwingGroups) own an aligned range of blocks (swing_blocks).
// Reduce-scatter, step s = 0 .. L-1: rank v sends its partner the blocks of the partner's group
// at step s+1 and reduces in the partner's copy of the blocks of its own group at step s+1. Then v
// owns block position(v). All-gather: the same steps in reverse, sending the owned range and
// receiving the partner's (halving_butterfly). Unfold sends results back (1 step).
// Cost: as halving_doubling, 2*log2(p)*a + 2(p-1)/p*n*b + (p-1)/p*n*g (plus 2a + 2n*b + n*g when
// N is not a power of two); it differs only in which ranks pair up, so on a ring or torus its
// transfers cross fewer hops.
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/swing_pairs.hpp"

namespace ringlab {

Schedule swing(Collective, int nranks, const AlgorithmOptions&) {
  return halving_butterfly("swing", nranks, &swing_peer, &swing_blocks);
}

}  // namespace ringlab
