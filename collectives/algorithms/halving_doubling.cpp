// Halving-doubling all-reduce (Rabenseifner; MPICH's large-message default).
// p = largest power of two <= N. Buffer cut into p blocks.
// Fold (only when N > p): PowerOfTwoFold hands the buffers of N - p ranks to partners (1 step).
// Reduce-scatter by recursive halving, log2 p steps: with mask = p/2, p/4, ..., 1 the pair
// v, v^mask splits its current block range in half; v keeps the half that contains block v,
// sends the other half and reduces in the partner's copy of the kept half. Then v owns block v.
// All-gather by recursive doubling, the same steps in reverse, sending the owned range and
// receiving the partner's half of the enclosing range. Unfold sends results back (1 step).
// Cost: 2*log2(p)*a + 2(p-1)/p*n*b + (p-1)/p*n*g, plus 2a + 2n*b + n*g when N is not a power of two.
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

Schedule halving_doubling(Collective, int nranks, const AlgorithmOptions&) {
  const PowerOfTwoFold fold = PowerOfTwoFold::of(nranks);
  const std::int64_t nchunks = fold.active;
  Schedule schedule = make_explicit("halving_doubling", Collective::allreduce, nranks, nchunks);
  if (nranks == 1) return schedule;
  const ChunkRange everything{0, nchunks};
  const int first_step = fold.remainder > 0 ? 1 : 0;
  const int halving_steps = floor_log2(fold.active);
  if (fold.remainder > 0) fold.add_fold(schedule, 0, everything);
  for (int rank = 0; rank < nranks; ++rank) {
    const int self = fold.virtual_rank(rank);
    if (self < 0) continue;
    std::vector<ChunkRange> enclosing;  // the range split at each halving step
    ChunkRange owned = everything;
    int step = first_step;
    for (int mask = fold.active / 2; mask >= 1; mask /= 2, ++step) {
      const int partner = fold.real_rank(self ^ mask);
      const std::int64_t middle = owned.begin + owned.size() / 2;
      const ChunkRange lower{owned.begin, middle};
      const ChunkRange upper{middle, owned.end};
      const bool keep_upper = (self & mask) != 0;
      add_op(schedule, rank, step, {OpKind::send, partner, keep_upper ? lower : upper});
      add_op(schedule, rank, step, {OpKind::recv_reduce, partner, keep_upper ? upper : lower});
      enclosing.push_back(owned);
      owned = keep_upper ? upper : lower;
    }
    for (int mask = 1; mask < fold.active; mask *= 2, ++step) {
      const int partner = fold.real_rank(self ^ mask);
      const ChunkRange parent = enclosing.back();
      enclosing.pop_back();
      const ChunkRange partner_half =
          owned.begin == parent.begin ? ChunkRange{owned.end, parent.end} : ChunkRange{parent.begin, owned.begin};
      add_op(schedule, rank, step, {OpKind::send, partner, owned});
      add_op(schedule, rank, step, {OpKind::recv, partner, partner_half});
      owned = parent;
    }
  }
  if (fold.remainder > 0) fold.add_unfold(schedule, first_step + 2 * halving_steps, everything);
  return schedule;
}

}  // namespace ringlab
