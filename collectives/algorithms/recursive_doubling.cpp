// Recursive doubling (latency-optimal, whole buffer every step) and the binomial-tree broadcast.
// All-reduce: p = largest power of two <= N; PowerOfTwoFold brings N down to p (1 step when
// N > p). Then for mask = 1, 2, ..., p/2 virtual ranks v and v^mask exchange the whole buffer and
// both reduce it in (sends read start-of-step values, so this is one step). Unfold sends back.
// Cost: log2(p)*(a + n*b + n*g), plus 2a + 2n*b + n*g when N is not a power of two.
// Broadcast: binomial tree from the root, ceil(log2 N) steps; in step i every rank at distance
// d < 2^i from the root sends the whole buffer to distance d + 2^i: ceil(log2 N)*(a + n*b).
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

Schedule binomial_broadcast(int nranks, int root) {
  Schedule schedule = make_explicit("recursive_doubling", Collective::broadcast, nranks, 1);
  schedule.root = root;
  const ChunkRange everything{0, 1};
  for (int step = 0, span = 1; span < nranks; ++step, span *= 2) {
    for (int distance = 0; distance < span && distance + span < nranks; ++distance) {
      const int sender = (root + distance) % nranks;
      const int receiver = (root + distance + span) % nranks;
      add_op(schedule, sender, step, {OpKind::send, receiver, everything});
      add_op(schedule, receiver, step, {OpKind::recv, sender, everything});
    }
  }
  return schedule;
}

}  // namespace

Schedule recursive_doubling(Collective collective, int nranks, const AlgorithmOptions& options) {
  if (collective == Collective::broadcast) return binomial_broadcast(nranks, options.root);
  const PowerOfTwoFold fold = PowerOfTwoFold::of(nranks);
  Schedule schedule = make_explicit("recursive_doubling", Collective::allreduce, nranks, 1);
  if (nranks == 1) return schedule;
  const ChunkRange everything{0, 1};
  const int first_step = fold.remainder > 0 ? 1 : 0;
  if (fold.remainder > 0) fold.add_fold(schedule, 0, everything);
  for (int rank = 0; rank < nranks; ++rank) {
    const int self = fold.virtual_rank(rank);
    if (self < 0) continue;
    int step = first_step;
    for (int mask = 1; mask < fold.active; mask *= 2, ++step) {
      const int partner = fold.real_rank(self ^ mask);
      add_op(schedule, rank, step, {OpKind::send, partner, everything});
      add_op(schedule, rank, step, {OpKind::recv_reduce, partner, everything});
    }
  }
  if (fold.remainder > 0) fold.add_unfold(schedule, first_step + floor_log2(fold.active), everything);
  return schedule;
}

}  // namespace ringlab
