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
  return whole_buffer_butterfly("recursive_doubling", nranks,
                                [](int self, int level, int) { return self ^ (1 << level); });
}

}  // namespace ringlab
