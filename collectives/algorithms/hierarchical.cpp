// Hierarchical (node-aware, two-level) all-reduce: N ranks in M = N/G groups of G consecutive
// ranks (a node, or a torus row); rank r is local rank l = r mod G of group g = r / G.
//
// The buffer is cut into G blocks of C chunks, C the inner schedule's chunk count.
// 1. Reduce-scatter inside each group, the ring's: G-1 steps, local rank l ends with block l
//    summed over its group.
// 2. All-reduce of block l across the M ranks with local rank l (one per group), by the inner
//    algorithm (--inner, default ring) built at M ranks: its ops, peers g' -> g'G + l, chunk
//    ranges moved into block l (a range that wraps inside the block becomes two ops).
// 3. All-gather inside each group, the ring's: G-1 steps.
// G is --group-size (or the topology's ranks per node) when it divides N, else the largest
// divisor of N below it (a prime N falls back to the inner algorithm over all N ranks).
// With inner ring: 2(G-1) + 2(M-1) steps, each rank sends 2(G-1)/G n + 2(M-1)/(MG) n and reduces
// (G-1)/G n + (M-1)/(MG) n: 2(G+M-2)a + 2(N-1)/N n b + (N-1)/N n g, and only 2(M-1)/(MG) n of it
// leaves the group. Another inner algorithm costs the rings' part plus its own cost at M ranks on n/G.
#include <algorithm>
#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

// One op of the ring in `rank`'s group: with local rank local_peer, on block `block` (both modulo G).
void add_group_op(Schedule& schedule, int group_size, int rank, int step, OpKind kind, int local_peer, int block,
                  std::int64_t block_chunks) {
  const int group_first = rank / group_size * group_size;
  const int peer = group_first + ((local_peer % group_size) + group_size) % group_size;
  const std::int64_t first = std::int64_t{((block % group_size) + group_size) % group_size} * block_chunks;
  add_op(schedule, rank, step, {kind, peer, {first, first + block_chunks}});
}

Schedule inner_schedule(int groups, const AlgorithmOptions& options) {
  if (options.inner == "hierarchical")
    throw std::invalid_argument("--inner hierarchical: the all-reduce across groups must be another algorithm, e.g. --inner ring");
  AlgorithmOptions inner_options;
  inner_options.shards = std::min(options.shards, groups);
  return make_schedule(options.inner, Collective::allreduce, groups, inner_options);
}

}  // namespace

int hierarchical_group_size(int nranks, int requested) {
  for (int size = nranks; size > 1; --size) {
    const bool fits = requested > 0 ? size <= requested : size * size <= nranks;
    if (fits && nranks % size == 0) return size;
  }
  return 1;
}

Schedule hierarchical(Collective, int nranks, const AlgorithmOptions& options) {
  const int group_size = hierarchical_group_size(nranks, options.group_size);
  const int groups = nranks / group_size;
  const Schedule inner = inner_schedule(groups, options);
  const std::int64_t block_chunks = inner.nchunks;
  Schedule schedule = make_explicit("hierarchical", Collective::allreduce, nranks, group_size * block_chunks);
  const int inner_first = group_size - 1;
  const int gather_first = inner_first + inner.num_steps();
  for (int rank = 0; rank < nranks; ++rank) {
    const int local = rank % group_size;
    for (int k = 0; k + 1 < group_size; ++k) {
      add_group_op(schedule, group_size, rank, k, OpKind::send, local + 1, local - k - 1, block_chunks);
      add_group_op(schedule, group_size, rank, k, OpKind::recv_reduce, local - 1, local - k - 2, block_chunks);
      add_group_op(schedule, group_size, rank, gather_first + k, OpKind::send, local + 1, local - k, block_chunks);
      add_group_op(schedule, group_size, rank, gather_first + k, OpKind::recv, local - 1, local - k - 1, block_chunks);
    }
    const std::int64_t block_first = local * block_chunks;
    const RankProgram across = inner.program(rank / group_size);
    for (std::size_t step = 0; step < across.steps.size(); ++step)
      for (const Op& op : across.steps[step]) {
        const int peer = op.peer * group_size + local;
        const int at = inner_first + static_cast<int>(step);
        const bool split = group_size > 1 && op.chunks.end > block_chunks;  // one block: wrap as the inner does
        const std::int64_t end = split ? block_chunks : op.chunks.end;
        add_op(schedule, rank, at, {op.kind, peer, {block_first + op.chunks.begin, block_first + end}});
        if (split)
          add_op(schedule, rank, at, {op.kind, peer, {block_first, block_first + op.chunks.end - block_chunks}});
      }
  }
  return schedule;
}

}  // namespace ringlab
