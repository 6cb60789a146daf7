// NCCL's ring all-reduce (src/device/all_reduce.h, runRing): the buffer is split across C channels
// and each channel runs the classic ring (reduce-scatter, then all-gather) over its own order of
// the ranks, in L slices (NCCL's loops) that follow each other one step apart.
// Orders: ranks form M = N/G nodes of G consecutive ranks (the node rings' length, else --group-size
// or the topology's ranks per node; 0 and no topology: one node). Channel c visits the nodes in
// order and, inside each, the positions c, c+1, ..., c-1 (mod G) of its node ring, as NCCL's rings
// enter node m at the GPU beside channel c's NIC: each channel crosses between nodes at other GPUs.
// Channel c's node ring is node_rings[c mod R] (NCCL's rings over direct NVLinks,
// topology/nvlink_rings.hpp), else 0 -> 1 -> ... -> G-1 (NCCL's NVSwitch search tries the next GPU
// first).
// Buffer: N x L x C chunks, rank-block major: chunk (bL + l)C + c is channel c's share of slice l
// of block b, the block rank b owns (in every channel) when the reduce-scatter ends. (NCCL keeps a
// channel's share of a loop contiguous; here a rank's block is, so on one order every rank's ops
// are the template's turned by the rank. Each channel moves its chunks and reduces them in its
// ring order as NCCL's.) One op a channel: channels are separate connections. With one order (one
// node, G = 1 or C = 1; no node rings) the schedule is circulant.
// Steps: slice l's ring step k (0 .. 2N-3) runs at step l + k: 2(N-1) + L - 1 steps. Every chunk
// crosses each ring link once, so a rank sends 2(N-1)/N n and reduces (N-1)/N n; a step moves at
// most min(L, 2(N-1)) slices x C channels of one chunk (n/N in all when every slice is active).
#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {

constexpr int default_slices = 1;

// The rank at position `position` of channel `channel`'s ring.
int ring_rank(int channel, int position, int group_size, const std::vector<std::vector<int>>& node_rings) {
  const int node_first = position / group_size * group_size;
  const int local = (channel + position % group_size) % group_size;
  if (node_rings.empty()) return node_first + local;
  return node_first + node_rings[static_cast<std::size_t>(channel) % node_rings.size()][static_cast<std::size_t>(local)];
}

// How many positions back from the sender ring step k's block lies: reduce-scatter steps send the
// block k + 1 back, all-gather steps the block k - (N - 1) back (that is, forward).
int step_offset(int k, int nranks) { return k < nranks - 1 ? k + 1 : k - (nranks - 1); }

// Every channel's order is 0 -> 1 -> ... -> N-1 turned: one template for every rank, the ring's on
// blocks of L x C chunks, one op a channel (NCCL's channels are separate connections: one flow each).
Schedule circulant_nccl_ring(int nranks, int channels, int slices) {
  const std::int64_t block_chunks = std::int64_t{channels} * slices;
  const int ring_steps = 2 * (nranks - 1);
  const auto chunk = [&](int blocks_back, int slice, int channel) {
    const std::int64_t begin =
        (((-blocks_back) % nranks + nranks) % nranks) * block_chunks + std::int64_t{slice} * channels + channel;
    return ChunkRange{begin, begin + 1};
  };
  RankProgram relative;
  relative.steps.resize(static_cast<std::size_t>(ring_steps + slices - 1));
  for (int channel = 0; channel < channels; ++channel)  // a step's ops by channel, then slice
    for (int slice = 0; slice < slices; ++slice)
      for (int k = 0; k < ring_steps; ++k) {
        const int offset = step_offset(k, nranks);
        Step& step = relative.steps[static_cast<std::size_t>(slice + k)];
        step.push_back({OpKind::send, 1, chunk(offset, slice, channel)});
        step.push_back({k < nranks - 1 ? OpKind::recv_reduce : OpKind::recv, nranks - 1, chunk(offset + 1, slice, channel)});
      }
  return make_circulant("nccl_ring", Collective::allreduce, nranks, block_chunks * nranks, std::move(relative));
}

}  // namespace

Schedule nccl_ring(Collective, int nranks, const AlgorithmOptions& options) {
  const int channels = options.channels > 0 ? options.channels : nccl_channels_default;
  const int slices = options.pipeline > 0 ? options.pipeline : default_slices;
  const int group_size = !options.node_rings.empty() ? static_cast<int>(options.node_rings.front().size())
                         : options.group_size > 0   ? hierarchical_group_size(nranks, options.group_size)
                                                    : nranks;
  if (nranks % group_size != 0)
    throw std::invalid_argument(fmt::format("nccl_ring: --node-rings orders nodes of {} ranks, which do not divide {} "
                                            "ranks; give rings of a divisor of N",
                                            group_size, nranks));
  if (nranks > 1 && options.node_rings.empty() && (group_size == nranks || group_size == 1 || channels == 1))
    return circulant_nccl_ring(nranks, channels, slices);
  const std::int64_t n = nranks;
  Schedule schedule = make_explicit("nccl_ring", Collective::allreduce, nranks, channels * slices * n);
  if (nranks == 1) return schedule;
  const int ring_steps = 2 * (nranks - 1);
  for (int channel = 0; channel < channels; ++channel)
    for (int slice = 0; slice < slices; ++slice)
      for (int position = 0; position < nranks; ++position) {
        const int rank = ring_rank(channel, position, group_size, options.node_rings);
        const int next = ring_rank(channel, (position + 1) % nranks, group_size, options.node_rings);
        for (int k = 0; k < ring_steps; ++k) {
          const int owner = ring_rank(channel, ((position - step_offset(k, nranks)) % nranks + nranks) % nranks, group_size,
                                      options.node_rings);
          const std::int64_t chunk = (std::int64_t{owner} * slices + slice) * channels + channel;
          add_op(schedule, rank, slice + k, {OpKind::send, next, {chunk, chunk + 1}});
          add_op(schedule, next, slice + k, {k < nranks - 1 ? OpKind::recv_reduce : OpKind::recv, rank, {chunk, chunk + 1}});
        }
      }
  return schedule;
}

}  // namespace ringlab
