// Classic ring (Baidu / Horovod / NCCL ring), N ranks on a ring, buffer cut into N chunks.
//
// Reduce-scatter, N-1 steps: in step k rank r sends chunk (r-k-1) mod N to r+1 and reduces
// chunk (r-k-2) mod N received from r-1 into its own; after step N-2 rank r holds chunk r summed
// over all ranks. All-gather, N-1 steps: in step k rank r sends chunk (r-k) mod N to r+1 and
// receives chunk (r-k-1) mod N from r-1, overwriting.
// All-reduce = reduce-scatter + all-gather: 2(N-1) steps, each rank sends 2(N-1)/N * n bytes
// and reduces (N-1)/N * n bytes: 2(N-1)a + 2(N-1)/N*n*b + (N-1)/N*n*g.
// Broadcast: a pipelined chain from the root (root -> root+1 -> ...), N chunks, 2N-2 steps,
// each link carries n bytes: (2N-2)(a + n/N*b).
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

// Chunk at offset `offset` from the rank's own, as a one-chunk range (template coordinates).
ChunkRange relative_chunk(int offset, int nranks) {
  const int begin = ((offset % nranks) + nranks) % nranks;
  return {begin, begin + 1};
}

void append_reduce_scatter(RankProgram& program, int nranks) {
  for (int k = 0; k < nranks - 1; ++k)
    program.steps.push_back({Op{OpKind::send, 1, relative_chunk(-k - 1, nranks)},
                             Op{OpKind::recv_reduce, nranks - 1, relative_chunk(-k - 2, nranks)}});
}

void append_allgather(RankProgram& program, int nranks) {
  for (int k = 0; k < nranks - 1; ++k)
    program.steps.push_back({Op{OpKind::send, 1, relative_chunk(-k, nranks)},
                             Op{OpKind::recv, nranks - 1, relative_chunk(-k - 1, nranks)}});
}

Schedule pipelined_chain_broadcast(int nranks, int root) {
  const std::int64_t nchunks = nranks;
  Schedule schedule = make_explicit("ring", Collective::broadcast, nranks, nchunks);
  schedule.root = root;
  if (nranks == 1) return schedule;
  const int total_steps = static_cast<int>(nranks - 1 + nchunks - 1);
  for (int position = 0; position < nranks; ++position) {
    const int rank = (root + position) % nranks;
    const int next = (rank + 1) % nranks;
    const int previous = (rank + nranks - 1) % nranks;
    for (int step = 0; step < total_steps; ++step) {
      const std::int64_t outgoing = step - position;      // chunk this position forwards now
      const std::int64_t incoming = step - position + 1;  // chunk arriving from the previous position
      if (position < nranks - 1 && outgoing >= 0 && outgoing < nchunks)
        add_op(schedule, rank, step, {OpKind::send, next, {outgoing, outgoing + 1}});
      if (position > 0 && incoming >= 0 && incoming < nchunks)
        add_op(schedule, rank, step, {OpKind::recv, previous, {incoming, incoming + 1}});
    }
  }
  return schedule;
}

}  // namespace

Schedule ring(Collective collective, int nranks, const AlgorithmOptions& options) {
  if (collective == Collective::broadcast) return pipelined_chain_broadcast(nranks, options.root);
  RankProgram relative;
  if (collective == Collective::allreduce || collective == Collective::reduce_scatter)
    append_reduce_scatter(relative, nranks);
  if (collective == Collective::allreduce || collective == Collective::allgather)
    append_allgather(relative, nranks);
  return make_circulant("ring", collective, nranks, nranks, std::move(relative));
}

}  // namespace ringlab
