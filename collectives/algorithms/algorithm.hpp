// The algorithm registry: every algorithm is a pure function (collective, nranks, options) -> Schedule.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/schedule.hpp"

namespace ringlab {

// The parameters a schedule builder gets (the CLI's --root, --shards, --group-size, --inner,
// --channels, --pipeline, --node-rings);
// each algorithm reads those it has and ignores the rest.
struct AlgorithmOptions {
  int root = 0;    // parameter-server root (server of shard 0) and broadcast root
  int shards = 1;  // parameter_server: number of shards (servers); nranks = direct RS + AG
  // hierarchical: ranks per group (0: not given, hierarchical_group_size picks) and the
  // all-reduce run across groups: a registry name or a literal (a view that must outlive the
  // options; the CLI stores find_algorithm(...).name).
  int group_size = 0;
  std::string_view inner = "ring";
  // nccl_ring: channels C (0: nccl_channels_default); nccl_ring, nccl_tree, double_binary_tree: pipeline depth,
  // the slices each channel's or tree's share is cut into (0: the algorithm's default).
  int channels = 0;
  int pipeline = 0;
  int step_blocks = 1;  // bruck_bounded: the most blocks a rank sends in one step (>= 1)
  // nccl_ring: the rings inside a node, each an order of its local ranks 0 .. G-1 (G, their length,
  // is then nccl_ring's node size); channel c follows ring c mod R (topology/nvlink_rings.hpp finds
  // them). Empty: rank order.
  std::vector<std::vector<int>> node_rings = {};
};

// What NCCL runs on an 8-GPU NVSwitch node (A100, H100): its ring search (src/graph/search.cc)
// finds 6 rings (40 GB/s each on sm80, 60 on sm90), ncclTopoDupChannels doubles them and
// connect.cc doubles again: 24.
inline constexpr int nccl_channels_default = 24;
inline constexpr int max_channels = 64;  // NCCL's MAXCHANNELS (src/include/device.h)
inline constexpr int max_pipeline = 64;

using ScheduleMaker = Schedule (*)(Collective collective, int nranks, const AlgorithmOptions& options);

struct AlgorithmInfo {
  std::string_view name;
  std::string_view summary;
  std::vector<Collective> collectives;  // the collectives this algorithm can build
  ScheduleMaker make;
};

// Every schedule-based algorithm, in the order reports list them.
std::span<const AlgorithmInfo> algorithms();
std::vector<std::string> algorithm_names();
// Throws std::invalid_argument listing the valid names (of `table`: the registry unless a test
// hands it one with a toy algorithm added).
const AlgorithmInfo& find_algorithm(std::string_view name, std::span<const AlgorithmInfo> table = algorithms());
bool supports(const AlgorithmInfo& algorithm, Collective collective);

// Validates the arguments (nranks >= 1, root in range, shards in [1, nranks], collective supported)
// with messages that say how to fix them, then builds the schedule.
Schedule make_schedule(std::string_view algorithm, Collective collective, int nranks,
                       const AlgorithmOptions& options = {});
// The same for a registry entry already found.
Schedule make_schedule(const AlgorithmInfo& algorithm, Collective collective, int nranks,
                       const AlgorithmOptions& options = {});

// The algorithm files, one function each (collectives/algorithms/algorithms.def).
#define RINGLAB_ALGORITHM(id, summary, ...) Schedule id(Collective collective, int nranks, const AlgorithmOptions& options);
#include "collectives/algorithms/algorithms.def"
#undef RINGLAB_ALGORITHM

// hierarchical's groups at N ranks: the largest divisor of N not above `requested` (all N when
// requested >= N); requested 0 gives the largest divisor g of N with g * g <= N.
int hierarchical_group_size(int nranks, int requested);

// double_binary_tree's two trees over N ranks (tree 0 or 1): a rank's parent (-1 for the root) and
// height (leaves 0, the root ceil(log2 N)); nccl_tree builds its trees over nodes with them.
int double_binary_tree_parent(int tree, int rank, int nranks);
int double_binary_tree_height(int tree, int rank, int nranks);

// Helpers shared by the algorithm files.
int floor_log2(int value);
int ceil_log2(int value);
// Explicit (non-circulant) schedule with nranks empty programs.
Schedule make_explicit(std::string_view algorithm, Collective collective, int nranks, std::int64_t nchunks);
// Appends `op` to step `step` of `rank`'s program, growing the step list as needed.
void add_op(Schedule& schedule, int rank, int step, Op op);

// Folds N ranks onto p = the largest power of two <= N (halving_doubling, recursive_doubling):
// among ranks 0 .. 2*remainder-1 each even rank hands its whole buffer to the odd rank above it
// and sits out; the p remaining ranks get virtual ranks 0 .. p-1.
struct PowerOfTwoFold {
  int active = 1;     // p
  int remainder = 0;  // N - p
  static PowerOfTwoFold of(int nranks);
  // Virtual rank of an active rank; -1 for a rank that folded away.
  int virtual_rank(int rank) const;
  int real_rank(int virtual_rank) const;
  // Step `step`: every folded rank sends `everything` to its partner, which reduces it in.
  void add_fold(Schedule& schedule, int step, ChunkRange everything) const;
  // Step `step`: every partner sends the result back to its folded rank.
  void add_unfold(Schedule& schedule, int step, ChunkRange everything) const;
};

// A butterfly on the whole buffer (1 chunk), the all-reduce of recursive_doubling and
// swing_latency: fold to p ranks, then at level l = 0 .. log2(p)-1 every virtual rank v and
// partner(v, l, p) send each other the whole buffer and both reduce it in, then unfold.
using ButterflyPartner = int (*)(int self, int level, int power);
Schedule whole_buffer_butterfly(std::string_view algorithm, int nranks, ButterflyPartner partner);

// A butterfly that halves the buffer then doubles it back, the all-reduce of swing and bine: fold
// to p = 2^L ranks and cut the buffer into p blocks; virtual rank v ends the reduce-scatter owning
// block owners(p)[v]. At level l = 0 .. L-1, v and w = partner(v, l, p) own blocks that agree in
// their top l bits and differ in the next one (throws std::logic_error otherwise): v sends w the
// 2^(L-l-1) blocks that share w's top l+1 bits and reduces in those that share its own. The
// all-gather runs the levels in reverse, each rank sending what it holds. Then unfold.
using BlockOwners = std::vector<int> (*)(int power);
Schedule halving_butterfly(std::string_view algorithm, int nranks, ButterflyPartner partner, BlockOwners owners);

// The circulant reduce-scatter / all-gather / all-reduce of interval_paired and bruck, over N
// blocks with offsets relative to rank r, mod N, for window sizes s_0 = N > s_1 > ... > s_K = 1
// with s_{k+1} >= s_k / 2. Reduce-scatter round k: r sends offsets [s_{k+1}, s_k) to r + s_{k+1}
// and reduces in offsets [0, s_k - s_{k+1}) from r - s_{k+1}; r then owns block r. All-gather: the
// rounds in reverse, r sending offsets [0, s_k - s_{k+1}) to r - s_{k+1} and receiving offsets
// [s_{k+1}, s_k) from r + s_{k+1}. All-reduce: both.
Schedule nested_intervals(std::string_view algorithm, Collective collective, int nranks, const std::vector<int>& sizes);

}  // namespace ringlab
