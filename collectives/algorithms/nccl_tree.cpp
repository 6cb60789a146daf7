// NCCL's tree all-reduce (src/device/all_reduce.h, runTreeUpDown; src/graph/connect.cc): ranks form
// M = N/G nodes of G consecutive ranks (--group-size or the topology's ranks per node; 0 and no
// topology: one node). Inside a node the ranks form a chain, local rank 0 -> 1 -> ... -> G-1 (NCCL's
// treeIntra); across nodes double_binary_tree's two trees over the M nodes (the same construction,
// called, as NCCL's ncclGetDtree). Node links attach as NCCL's balanced pattern does: a node's
// link to its parent node leaves from its chain head (local 0); at the parent, a child of type 0
// (in tree-0 coordinates the child is below its parent, ncclGetBtree's parentChildType) lands on
// local 1 when G >= 2, a child of type 1 on local 0. So each tree t is one tree over all N ranks.
// Buffer: 2S chunks, S = --pipeline (default 8) segments a tree; tree t carries chunks
// [tS, (t+1)S), a segment each. As double_binary_tree: a non-root rank v of height h(v) sends
// segment j up at step j + h(v), the parent reducing it in; the root (height H_t) holds it after
// step j + H_t - 1 and a rank at depth d receives it at step j + H_t + d - 1.
// Steps: S - 1 + 2H, H = max(H_0, H_1): G + 2 ceil(log2 M) - 2 (G >= 2, M >= 2; each node level
// adds 2 through a type-0 link, the root's single child is type 1), G - 1 (M = 1), ceil(log2 M)
// (G = 1). Bytes: n/2 per tree up and n/2 to each child: at most 2.5 n on a rank.
#include <algorithm>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

constexpr int default_segments = 8;

// Tree-0 coordinates of node `node` in tree `tree` (double_binary_tree's mirror or shift).
int tree0_coordinate(int tree, int node, int nodes) {
  if (tree == 0) return node;
  return nodes % 2 == 0 ? nodes - 1 - node : (node + nodes - 1) % nodes;
}

// Each rank's parent in tree `tree` (-1 for the root, local rank 0 of the tree's root node).
std::vector<int> rank_parents(int tree, int nranks, int group_size) {
  const int nodes = nranks / group_size;
  std::vector<int> parents(static_cast<std::size_t>(nranks), -1);
  for (int rank = 0; rank < nranks; ++rank) {
    const int node = rank / group_size;
    const int local = rank % group_size;
    if (local > 0) {
      parents[static_cast<std::size_t>(rank)] = rank - 1;
      continue;
    }
    const int parent_node = double_binary_tree_parent(tree, node, nodes);
    if (parent_node < 0) continue;
    const bool type0 = tree0_coordinate(tree, node, nodes) < tree0_coordinate(tree, parent_node, nodes);
    parents[static_cast<std::size_t>(rank)] = parent_node * group_size + (type0 && group_size > 1 ? 1 : 0);
  }
  return parents;
}

struct TreeShape {
  std::vector<int> parent;
  std::vector<int> height;
  std::vector<int> depth;
  int root_height = 0;
};

TreeShape tree_shape(int tree, int nranks, int group_size) {
  TreeShape shape{rank_parents(tree, nranks, group_size), std::vector<int>(static_cast<std::size_t>(nranks), 0),
                  std::vector<int>(static_cast<std::size_t>(nranks), 0), 0};
  for (int rank = 0; rank < nranks; ++rank) {
    int depth = 0;
    for (int up = rank, below = 0; up >= 0; up = shape.parent[static_cast<std::size_t>(up)], ++below) {
      int& height = shape.height[static_cast<std::size_t>(up)];
      height = std::max(height, below);
      if (up != rank) ++depth;
    }
    shape.depth[static_cast<std::size_t>(rank)] = depth;
  }
  shape.root_height = *std::max_element(shape.depth.begin(), shape.depth.end());
  return shape;
}

}  // namespace

Schedule nccl_tree(Collective, int nranks, const AlgorithmOptions& options) {
  const int segments = options.pipeline > 0 ? options.pipeline : default_segments;
  Schedule schedule = make_explicit("nccl_tree", Collective::allreduce, nranks, 2 * segments);
  if (nranks == 1) return schedule;
  const int group_size = options.group_size > 0 ? hierarchical_group_size(nranks, options.group_size) : nranks;
  for (int tree = 0; tree < 2; ++tree) {
    const TreeShape shape = tree_shape(tree, nranks, group_size);
    for (int segment = 0; segment < segments; ++segment) {
      const std::int64_t chunk = std::int64_t{tree} * segments + segment;
      const ChunkRange chunks{chunk, chunk + 1};
      for (int rank = 0; rank < nranks; ++rank) {
        const auto at = static_cast<std::size_t>(rank);
        const int parent = shape.parent[at];
        if (parent < 0) continue;
        const int up = segment + shape.height[at];
        add_op(schedule, rank, up, {OpKind::send, parent, chunks});
        add_op(schedule, parent, up, {OpKind::recv_reduce, rank, chunks});
        const int down = segment + shape.root_height + shape.depth[at] - 1;
        add_op(schedule, parent, down, {OpKind::send, rank, chunks});
        add_op(schedule, rank, down, {OpKind::recv, parent, chunks});
      }
    }
  }
  return schedule;
}

}  // namespace ringlab
