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
  const PowerOfTwoFold fold = PowerOfTwoFold::of(nranks);
  Schedule schedule = make_explicit("swing_latency", Collective::allreduce, nranks, 1);
  if (nranks == 1) return schedule;
  const ChunkRange everything{0, 1};
  const int first_step = fold.remainder > 0 ? 1 : 0;
  const int levels = floor_log2(fold.active);
  if (fold.remainder > 0) fold.add_fold(schedule, 0, everything);
  for (int rank = 0; rank < nranks; ++rank) {
    const int self = fold.virtual_rank(rank);
    if (self < 0) continue;
    for (int level = 0; level < levels; ++level) {
      const int partner = fold.real_rank(swing_peer(self, level, fold.active));
      add_op(schedule, rank, first_step + level, {OpKind::send, partner, everything});
      add_op(schedule, rank, first_step + level, {OpKind::recv_reduce, partner, everything});
    }
  }
  if (fold.remainder > 0) fold.add_unfold(schedule, first_step + levels, everything);
  return schedule;
}

}  // namespace ringlab
