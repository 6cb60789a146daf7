// Double binary tree all-reduce (NCCL's trees): two binary trees over the N ranks, each reducing
// then broadcasting half of the buffer, pipelined in segments.
// Tree 0: rank r > 0 with lowest set bit b has parent (r - b) | 2b, or r - b when that is >= N;
// rank 0 is the root, with the one child 2^(K-1), K = ceil(log2 N). Odd ranks are its leaves and a
// rank of lowest bit b has height log2 b, so the root's height is K. Tree 1 is tree 0 mirrored
// (r -> N-1-r) when N is even, shifted by one (r -> r+1 mod N) when N is odd, as NCCL builds it:
// tree 0's leaves (odd ranks) are tree 1's interior, so every rank is a leaf in at least one tree
// except, N odd, rank 0 (tree 0's root with one child; one child in tree 1, where it stands for
// N-1). Both trees have tree 0's shape.
// Buffer: 2S chunks, S = --pipeline segments a tree (default 4); tree t carries chunks [t*S, (t+1)*S), one segment each.
// Steps (the pipeline is in the schedule): in tree t a non-root rank v of height h(v), depth d(v)
// sends segment j to its parent at step j + h(v), the parent reducing it in; children send a
// segment in earlier steps than their parent forwards it, so no rank receives a chunk in a step
// that sends it (sends read start-of-step values). The root holds segment j after step j + K - 1;
// the broadcast reaches depth d at step j + K + d - 1. Both trees run in the same steps: S - 1 + 2K steps (N >= 2).
// Bytes: per tree a rank sends n/2 to its parent and n/2 to each child; a rank with two children in
// one tree is a leaf in the other (rank 0 has one child in each), so at most 2n is sent (N >= 4; n at N = 2, 1.5n at N = 3), and
// at most n reduced. A step moves at most 4 chunks (n/2) into or out of a rank.
#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

constexpr int default_tree_segments = 4;

int lowest_bit(int rank) { return rank & -rank; }

// Tree 0's parent of rank (-1 for the root, rank 0).
int btree_parent(int rank, int nranks) {
  if (rank == 0) return -1;
  const int bit = lowest_bit(rank);
  const int up = (rank ^ bit) | (bit << 1);
  return up < nranks ? up : rank ^ bit;
}

// Tree-0 height of a rank: log2 of its lowest bit; the root's is K.
int btree_height(int rank, int nranks) {
  if (rank == 0) return ceil_log2(nranks);
  return floor_log2(lowest_bit(rank));
}

}  // namespace

// Tree `tree`'s parent of rank: tree 0, or tree 0 seen through the mirror (N even) or the shift
// (N odd), both their own inverse up to direction.
int double_binary_tree_parent(int tree, int rank, int nranks) {
  if (tree == 0) return btree_parent(rank, nranks);
  if (nranks % 2 == 0) {
    const int parent = btree_parent(nranks - 1 - rank, nranks);
    return parent < 0 ? -1 : nranks - 1 - parent;
  }
  const int parent = btree_parent((rank + nranks - 1) % nranks, nranks);
  return parent < 0 ? -1 : (parent + 1) % nranks;
}

int double_binary_tree_height(int tree, int rank, int nranks) {
  if (tree == 0) return btree_height(rank, nranks);
  return btree_height(nranks % 2 == 0 ? nranks - 1 - rank : (rank + nranks - 1) % nranks, nranks);
}

namespace {

int tree_depth(int tree, int rank, int nranks) {
  int depth = 0;
  for (int up = double_binary_tree_parent(tree, rank, nranks); up >= 0; up = double_binary_tree_parent(tree, up, nranks)) ++depth;
  return depth;
}

}  // namespace

Schedule double_binary_tree(Collective, int nranks, const AlgorithmOptions& options) {
  const int segments = options.pipeline > 0 ? options.pipeline : default_tree_segments;
  Schedule schedule = make_explicit("double_binary_tree", Collective::allreduce, nranks, 2 * segments);
  if (nranks == 1) return schedule;
  const int root_height = ceil_log2(nranks);
  for (int tree = 0; tree < 2; ++tree)
    for (int segment = 0; segment < segments; ++segment) {
      const std::int64_t chunk = tree * segments + segment;
      const ChunkRange chunks{chunk, chunk + 1};
      for (int rank = 0; rank < nranks; ++rank) {
        const int parent = double_binary_tree_parent(tree, rank, nranks);
        if (parent < 0) continue;
        const int up = segment + double_binary_tree_height(tree, rank, nranks);
        add_op(schedule, rank, up, {OpKind::send, parent, chunks});
        add_op(schedule, parent, up, {OpKind::recv_reduce, rank, chunks});
        const int down = segment + root_height + tree_depth(tree, rank, nranks) - 1;
        add_op(schedule, parent, down, {OpKind::send, rank, chunks});
        add_op(schedule, rank, down, {OpKind::recv, parent, chunks});
      }
    }
  return schedule;
}

}  // namespace ringlab
