// Parameter server. The buffer is cut into k shards (k = --shards, default 1); shard j lives on
// server rank (root + j) mod N.
// All-reduce, 2 steps: (1) every rank sends shard j to its server, which reduces the N-1
// incoming copies in rank order; (2) each server sends its reduced shard back to every rank.
// A server receives (N-1)*n/k bytes in step 1 and sends as many in step 2 (incast on its link):
// 2a + 2(N-1)(n/k)b + (N-1)(n/k)g. k = 1 is the central server; k = N is the direct
// (all-to-all) reduce-scatter followed by the direct all-gather.
// Reduce-scatter = step 1 with k = N (rank r serves block r); all-gather = step 2 with k = N.
// Broadcast: the root sends the whole buffer to every rank in one step: a + (N-1)n*b.
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

int server_of(int shard, int root, int nranks) { return (root + shard) % nranks; }

enum class Direction { to_servers, from_servers };

// Every rank exchanges shard j with the shard's server: towards it (the server reduces the N-1
// copies in rank order) or back from it (every rank overwrites its copy).
void exchange_shards(Schedule& schedule, int step, int shards, int root, Direction direction) {
  const int nranks = schedule.nranks;
  for (int shard = 0; shard < shards; ++shard) {
    const int server = server_of(shard, root, nranks);
    const ChunkRange chunks{shard, shard + 1};
    for (int rank = 0; rank < nranks; ++rank) {
      if (rank == server) continue;
      const bool up = direction == Direction::to_servers;
      add_op(schedule, up ? rank : server, step, {OpKind::send, up ? server : rank, chunks});
      add_op(schedule, up ? server : rank, step, {up ? OpKind::recv_reduce : OpKind::recv, up ? rank : server, chunks});
    }
  }
}

}  // namespace

Schedule parameter_server(Collective collective, int nranks, const AlgorithmOptions& options) {
  // Reduce-scatter and all-gather need rank r to own block r: N shards, root 0.
  const bool per_rank_blocks = collective == Collective::reduce_scatter || collective == Collective::allgather;
  const int shards = per_rank_blocks ? nranks : (collective == Collective::broadcast ? 1 : options.shards);
  const int root = per_rank_blocks ? 0 : options.root;
  Schedule schedule = make_explicit("parameter_server", collective, nranks, shards);
  schedule.root = root;
  if (nranks == 1) return schedule;
  switch (collective) {
    case Collective::allreduce:
      exchange_shards(schedule, 0, shards, root, Direction::to_servers);
      exchange_shards(schedule, 1, shards, root, Direction::from_servers);
      break;
    case Collective::reduce_scatter: exchange_shards(schedule, 0, shards, root, Direction::to_servers); break;
    case Collective::allgather:
    case Collective::broadcast: exchange_shards(schedule, 0, shards, root, Direction::from_servers); break;
  }
  return schedule;
}

}  // namespace ringlab
