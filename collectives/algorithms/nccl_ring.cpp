// NCCL's ring all-reduce (src/device/all_reduce.h, runRing): the buffer is split across C channels
// and each channel runs the classic ring (reduce-scatter, then all-gather) over its own order of
// the ranks, in L slices (NCCL's loops) that follow each other one step apart.
// Orders: ranks form M = N/G nodes of G consecutive ranks (the node rings' length, else --group-size
// or the topology's ranks per node; 0 and no topology: one node). Channel c visits the nodes in order and, inside each, the
// positions c, c+1, ..., c-1 (mod G) of its node ring, as NCCL's rings enter node m at the GPU
// beside channel c's NIC: each channel crosses between nodes at other GPUs. Channel c's node ring
// is node_rings[c mod R] (NCCL's rings over direct NVLinks, topology/nvlink_rings.hpp), else
// 0 -> 1 -> ... -> G-1 (NCCL's NVSwitch search tries the next GPU first).
// Buffer: C x L x N chunks; channel c, slice l owns chunks [(cL + l)N, (cL + l + 1)N), block b the
// chunk b of them, and position p of the channel's order ends the reduce-scatter owning block p.
// Steps: slice l's ring step k (0 .. 2N-3) runs at step l + k: 2(N-1) + L - 1 steps. Every chunk
// crosses each ring link once, so a rank sends 2(N-1)/N n and reduces (N-1)/N n; a step moves at
// most min(L, 2(N-1)) slices x C channels of one chunk (n/N in all when every slice is active).
#include <fmt/format.h>

#include <stdexcept>

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

}  // namespace

Schedule nccl_ring(Collective, int nranks, const AlgorithmOptions& options) {
  const int channels = options.channels > 0 ? options.channels : nccl_channels_default;
  const int slices = options.pipeline > 0 ? options.pipeline : default_slices;
  const std::int64_t n = nranks;
  Schedule schedule = make_explicit("nccl_ring", Collective::allreduce, nranks, channels * slices * n);
  if (nranks == 1) return schedule;
  const int group_size = !options.node_rings.empty() ? static_cast<int>(options.node_rings.front().size())
                         : options.group_size > 0   ? hierarchical_group_size(nranks, options.group_size)
                                                    : nranks;
  if (nranks % group_size != 0)
    throw std::invalid_argument(fmt::format("nccl_ring: --node-rings orders nodes of {} ranks, which do not divide {} "
                                            "ranks; give rings of a divisor of N",
                                            group_size, nranks));
  const int ring_steps = 2 * (nranks - 1);
  for (int channel = 0; channel < channels; ++channel)
    for (int slice = 0; slice < slices; ++slice) {
      const std::int64_t base = (std::int64_t{channel} * slices + slice) * n;
      for (int position = 0; position < nranks; ++position) {
        const int rank = ring_rank(channel, position, group_size, options.node_rings);
        const int next = ring_rank(channel, (position + 1) % nranks, group_size, options.node_rings);
        for (int k = 0; k < ring_steps; ++k) {
          const bool reducing = k < nranks - 1;
          const int offset = reducing ? k + 1 : k - (nranks - 1);
          const std::int64_t block = base + ((position - offset) % n + n) % n;
          add_op(schedule, rank, slice + k, {OpKind::send, next, {block, block + 1}});
          add_op(schedule, next, slice + k, {reducing ? OpKind::recv_reduce : OpKind::recv, rank, {block, block + 1}});
        }
      }
    }
  return schedule;
}

}  // namespace ringlab
