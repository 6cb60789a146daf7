// Whether two schedules are the same up to a relabelling of ranks and of chunks
// (`ringlab verify --equivalent A B`), e.g. whether one algorithm is another renumbered.
//
// Chunks are compared as blocks: a schedule's blocks are the coarsest partition of its chunks such
// that every op's chunk range is a union of blocks (the regions of the Venn diagram of all op
// ranges). A block's size is its fraction of the buffer, so schedules with different chunk counts
// compare (a block of 2 of 16 chunks matches one of 1 of 8). A and B are equivalent when there is
// a bijection pi of ranks and a bijection sigma of blocks, sigma keeping each block's fraction,
// such that for every rank r and step k the ops of A's rank r at step k, with each peer p read as
// pi(p) and each block set X as sigma(X), are B's ops of rank pi(r) at step k. The order of ops in
// a step is ignored except among ops of one kind with one peer, which keep their order (the i-th
// send to a peer matches the peer's i-th receive). Summation order across peers is not compared.
//
// The search maps ranks one at a time and propagates each mapping along the ops (a peer reached
// by a unique op is mapped without a choice), keeping per block of A the blocks of B it may still
// map to; it branches only where several peers are alike. Before it, invariants (rank count,
// collective, step count, per step the multiset of the ranks' op kinds and fractions, the block
// sizes) give the first difference in words. Every mapping found is checked op by op.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/schedule.hpp"

namespace ringlab {

struct BlockPair {
  std::vector<std::int64_t> a_chunks;  // a block of A (chunk indices, ascending)
  std::vector<std::int64_t> b_chunks;  // the block of B it maps to
};

struct EquivalenceResult {
  bool equivalent = false;
  bool decided = true;              // false: the search stopped at its limit without an answer
  std::vector<int> rank_map;        // A's rank r is B's rank rank_map[r] (when equivalent)
  std::vector<BlockPair> block_map;  // in A's block order (when equivalent)
  std::string difference;           // when not equivalent: the first difference, in words
  std::int64_t branches = 0;        // rank choices the search tried
};

// Decides whether `a` and `b` are equivalent (see above). `branch_limit` caps the choices the
// search may try before it gives up (decided = false).
EquivalenceResult find_equivalence(const Schedule& a, const Schedule& b, std::int64_t branch_limit = 200000);

// "0-3,5" style text of ascending chunk indices.
std::string describe_chunks(const std::vector<std::int64_t>& chunks);

}  // namespace ringlab
