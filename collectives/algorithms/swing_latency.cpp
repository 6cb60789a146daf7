// Swing all-reduce, latency-optimal form (De Sensi et al., NSDI 2024): recursive doubling on the
// whole buffer with the Swing partners of swing_pairs.hpp instead of XOR partners.
// p = the largest power of two <= N; PowerOfTwoFold brings N down to p (1 step when N > p; the
// fold is ringlab's, as in recursive_doubling). Then for s = 0 .. log2(p)-1 rank v and
// swing_peer(v, s) exchange the whole buffer and both reduce it in. Unfold sends back.
// Cost: log2(p)*(a + n*b + n*g), plus 2a + 2n*b + n*g when N is not a power of two.
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/swing_pairs.hpp"

namespace ringlab {

Schedule swing_latency(Collective, int nranks, const AlgorithmOptions&) {
  return whole_buffer_butterfly("swing_latency", nranks, &swing_peer);
}

}  // namespace ringlab
