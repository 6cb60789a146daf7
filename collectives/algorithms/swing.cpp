// Swing all-reduce, bandwidth-optimal form (De Sensi et al., NSDI 2024): reduce-scatter then
// all-gather, each over L = log2 p steps with the Swing partners of swing_pairs.hpp, where
// p = the largest power of two <= N.
// Fold (only when N > p): PowerOfTwoFold hands the buffers of N - p ranks to partners (1 step).
// This fold is ringlab's, as in halving_doubling; the paper treats other N differently.
// Buffer cut into p blocks, numbered so that the ranks a rank reaches through steps s .. L-1
// (its group at step s, SwingGroups) own a contiguous range of blocks.
// Reduce-scatter, step s = 0 .. L-1: rank v sends its partner the blocks of the partner's group
// at step s+1 and reduces in the partner's copy of the blocks of its own group at step s+1. Then v
// owns block position(v). All-gather: the same steps in reverse, sending the owned range and
// receiving the partner's. Unfold sends results back (1 step).
// Cost: as halving_doubling, 2*log2(p)*a + 2(p-1)/p*n*b + (p-1)/p*n*g (plus 2a + 2n*b + n*g when
// N is not a power of two); it differs only in which ranks pair up, so on a ring or torus its
// transfers cross fewer hops.
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/swing_pairs.hpp"

namespace ringlab {

Schedule swing(Collective, int nranks, const AlgorithmOptions&) {
  const PowerOfTwoFold fold = PowerOfTwoFold::of(nranks);
  Schedule schedule = make_explicit("swing", Collective::allreduce, nranks, fold.active);
  if (nranks == 1) return schedule;
  const SwingGroups groups(fold.active);
  const int levels = groups.levels();
  const int first_step = fold.remainder > 0 ? 1 : 0;
  if (fold.remainder > 0) fold.add_fold(schedule, 0, ChunkRange{0, fold.active});
  auto blocks = [&](int self, int level) { return ChunkRange{groups.first(self, level), groups.last(self, level)}; };
  for (int rank = 0; rank < nranks; ++rank) {
    const int self = fold.virtual_rank(rank);
    if (self < 0) continue;
    for (int level = 0; level < levels; ++level) {
      const int peer = swing_peer(self, level, fold.active);
      add_op(schedule, rank, first_step + level, {OpKind::send, fold.real_rank(peer), blocks(peer, level + 1)});
      add_op(schedule, rank, first_step + level, {OpKind::recv_reduce, fold.real_rank(peer), blocks(self, level + 1)});
    }
    for (int level = levels - 1, step = first_step + levels; level >= 0; --level, ++step) {
      const int peer = swing_peer(self, level, fold.active);
      add_op(schedule, rank, step, {OpKind::send, fold.real_rank(peer), blocks(self, level + 1)});
      add_op(schedule, rank, step, {OpKind::recv, fold.real_rank(peer), blocks(peer, level + 1)});
    }
  }
  if (fold.remainder > 0) fold.add_unfold(schedule, first_step + 2 * levels, ChunkRange{0, fold.active});
  return schedule;
}

}  // namespace ringlab
