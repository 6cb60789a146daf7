// nccl_ring at scale (issue 33): on one rank order (one node) a circulant schedule
// (collectives/algorithms/nccl_ring.cpp), priced as `ring` is; on several, explicit as before. Both
// against the predictions of the channel-major layout nccl_ring had before (the numbers below):
// where chunks are equal, closed form within 1e-9 and flow level within 1e-6.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/schedule_equivalence.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"
#include "simulator/flow_level.hpp"
#include "topology/presets.hpp"
#include "topology/rank_groups.hpp"

namespace ringlab {
namespace {

struct NcclRingCase {
  const char* preset;
  int channels;            // 0: the default
  int pipeline;            // 0: the default
  std::int64_t count;      // float32 elements
  double closed_form_seconds;
  double flow_level_seconds;
};

// Computed with the channel-major layout (chunk (cL + l)N + b), at the topology's ranks per node
// and gamma, flow level in 1 MiB segments.
const NcclRingCase todays_cases[] = {
    {"ring:16", 0, 0, 16 * 24 * 2000, 0.00054839999999999967, 0.00054840000000000292},
    {"ring:16", 0, 0, (1 << 20) + 3, 0.00073782120000000044, 0.00073782119999999827},
    {"ring:16", 4, 3, 16 * 12 * 2000, 0.00029119999999999971, 0.00029119999999999987},
    {"ring:64", 0, 0, 64 * 24 * 64, 0.00019567296000000056, 0.00019567296000000189},
    {"torus2d:4x4", 0, 0, 16 * 24 * 2000, 0.0004632000000000002, 0.00049200000000000231},
    {"torus2d:4x4", 3, 0, (1 << 20) + 3, 0.00061051048000000045, 0.00063964592000001995},
    {"torus2d:4x8", 0, 2, 32 * 48 * 500, 0.00054263999999999983, 0.00055752000000000666},
    {"nvswitch:8,nodes:2", 0, 0, 16 * 24 * 2000, 0.0003936000000000003, 0.00037680000000000086},
    {"nvswitch:8,nodes:2", 0, 0, (1 << 20) + 3, 0.00051548009333333327, 0.00049253751999999969},
    {"nvswitch:8,nodes:2", 10, 3, 16 * 30 * 700, 0.00021688000000000008, 0.00021015999999999938},
    {"nvswitch:8,nodes:4", 0, 0, 32 * 24 * 1000, 0.00046871999999999929, 0.00045136000000000514},
    {"dgx-a100,nodes:2", 0, 0, 16 * 24 * 2000, 8.5837371260421791e-05, 6.9037371260421667e-05},
    {"hgx-h100,nodes:2", 0, 0, 16 * 24 * 2000, 6.417910447761197e-05, 5.2979104477611907e-05},
    {"hgx-h100,nodes:2", 0, 0, (1 << 22) + 5, 0.00018989886447761192, 0.00012872977074626906},
    {"dragonfly:2,routers=2,ranks=2,global=1", 0, 0, 8 * 24 * 3000, 0.00038458000000000009, 0.0003845799999999996},
};

TEST(NcclRingScale, PredictionsEqualTheChannelMajorLayouts) {
  for (const NcclRingCase& c : todays_cases) {
    const Topology topology = make_preset_topology(c.preset);
    AlgorithmOptions options;
    options.group_size = ranks_per_node(topology);
    options.channels = c.channels;
    options.pipeline = c.pipeline;
    const int channels = c.channels > 0 ? c.channels : nccl_channels_default;
    const int slices = c.pipeline > 0 ? c.pipeline : 1;
    const Schedule schedule = make_schedule("nccl_ring", Collective::allreduce, topology.num_endpoints(), options);
    const double gamma = simulator::choose_gamma(topology, std::nullopt);
    const double closed = simulator::ClosedFormModel(topology, gamma).predict(schedule, c.count, DataType::float32).seconds;
    simulator::FlowLevelOptions flow_options;
    flow_options.segment_bytes = 1 << 20;
    const double flow = simulator::FlowLevelModel(topology, gamma, flow_options)
                            .predict(schedule, c.count, DataType::float32)
                            .prediction.seconds;
    const std::string where = fmt::format("{} channels {} pipeline {} count {}: closed {:.17g} flow {:.17g}", c.preset,
                                          c.channels, c.pipeline, c.count, closed, flow);
    // Unequal chunks: chunk i holds count / CLN elements or one more, and the layout moved which
    // (channel, slice, block) holds one more; a message's bytes differ by at most an element.
    const bool equal_chunks = c.count % (std::int64_t{channels} * slices * topology.num_endpoints()) == 0;
    EXPECT_NEAR(closed, c.closed_form_seconds, (equal_chunks ? 1e-9 : 1e-4) * c.closed_form_seconds) << where;
    EXPECT_NEAR(flow, c.flow_level_seconds, (equal_chunks ? 1e-6 : 1e-2) * c.flow_level_seconds) << where;
  }
}

// nccl_ring as built before the rank-block layout: channel-major (channel c's slice l is chunks
// [(cL + l)N, (cL + l + 1)N), block p of them owned by position p), one op a chunk.
Schedule channel_major_nccl_ring(int nranks, int group_size, int channels, int slices) {
  const std::int64_t n = nranks;
  Schedule schedule = make_explicit("nccl_ring", Collective::allreduce, nranks, channels * slices * n);
  const auto at = [&](int channel, int position) {
    const int node_first = position / group_size * group_size;
    return node_first + (channel + position % group_size) % group_size;
  };
  for (int channel = 0; channel < channels; ++channel)
    for (int slice = 0; slice < slices; ++slice)
      for (int position = 0; position < nranks; ++position)
        for (int k = 0; k < 2 * (nranks - 1); ++k) {
          const int back = k < nranks - 1 ? k + 1 : k - (nranks - 1);
          const std::int64_t block = (std::int64_t{channel} * slices + slice) * n + ((position - back) % n + n) % n;
          const int rank = at(channel, position), next = at(channel, (position + 1) % nranks);
          add_op(schedule, rank, slice + k, {OpKind::send, next, {block, block + 1}});
          add_op(schedule, next, slice + k, {k < nranks - 1 ? OpKind::recv_reduce : OpKind::recv, rank, {block, block + 1}});
        }
  return schedule;
}

TEST(NcclRingScale, SameTransfersAsTheChannelMajorLayout) {
  // Rank for rank, step for step, the same ops up to a renumbering of the chunks: the circulant
  // (one order) and the explicit (several) builds alike.
  struct Shape {
    int nranks, group_size, channels, slices;
  };
  for (const Shape shape : {Shape{2, 0, 3, 1}, Shape{5, 0, 4, 2}, Shape{6, 1, 4, 2}, Shape{8, 8, 1, 3}, Shape{8, 4, 3, 2},
                            Shape{9, 3, 5, 1}, Shape{12, 4, 8, 1}, Shape{16, 8, 10, 2}}) {
    const Schedule built = make_schedule("nccl_ring", Collective::allreduce, shape.nranks,
                                         {0, 1, shape.group_size, "ring", shape.channels, shape.slices});
    const int group_size = shape.group_size > 0 ? shape.group_size : shape.nranks;
    const EquivalenceResult result =
        find_equivalence(channel_major_nccl_ring(shape.nranks, group_size, shape.channels, shape.slices), built);
    const std::string where = fmt::format("N {} G {} C {} L {}: {}", shape.nranks, shape.group_size, shape.channels,
                                          shape.slices, result.difference);
    ASSERT_TRUE(result.equivalent) << where;
    for (int rank = 0; rank < shape.nranks; ++rank) EXPECT_EQ(result.rank_map[static_cast<std::size_t>(rank)], rank) << where;
    for (const BlockPair& pair : result.block_map) EXPECT_EQ(pair.a_chunks.size(), 1u) << where;  // chunk for chunk
  }
}

TEST(NcclRingScale, OneRankOrderIsCirculant) {
  // One node, one rank a node, or one channel: every channel runs 0 -> 1 -> ... -> N-1, one template.
  for (const AlgorithmOptions& options : {AlgorithmOptions{}, AlgorithmOptions{0, 1, 1, "ring", 24, 2},
                                         AlgorithmOptions{0, 1, 8, "ring", 1, 3}}) {
    const Schedule schedule = make_schedule("nccl_ring", Collective::allreduce, 4096, options);
    ASSERT_TRUE(schedule.circulant) << options.group_size << " " << options.channels;
    const int slices = options.pipeline > 0 ? options.pipeline : 1;
    const int channels = options.channels > 0 ? options.channels : nccl_channels_default;
    EXPECT_EQ(schedule.num_steps(), 2 * 4095 + slices - 1);
    EXPECT_EQ(schedule.nchunks, std::int64_t{4096} * slices * channels);
    // Mid-run every slice is active: a send and a receive a channel a slice, to the next rank and
    // from the one before.
    const Step& middle = schedule.programs.front().steps[4096];
    EXPECT_EQ(middle.size(), static_cast<std::size_t>(2 * slices * channels));
    for (const Op& op : middle) EXPECT_EQ(op.peer, op.kind == OpKind::send ? 1 : 4095);
  }
  // Nodes of 8 with more than one channel: channels cross nodes at different ranks, explicit.
  EXPECT_FALSE(make_schedule("nccl_ring", Collective::allreduce, 16, {0, 1, 8, "ring", 2, 1}).circulant);
}

TEST(NcclRingScale, TheClosedFormPricesAStepsChannelsAsOneOp) {
  // 8 ranks, one node, 4 channels, 2 slices: mid-run a step's 4 sends of a slice (chunks
  // (bL + l)C .. + C) join, so do its 4 receives: 4 ops, each of C chunks.
  const Schedule schedule = make_schedule("nccl_ring", Collective::allreduce, 8, {0, 1, 0, "ring", 4, 2});
  const std::optional<Schedule> joined = simulator::joined_transfers(schedule);
  ASSERT_TRUE(joined.has_value());
  ASSERT_EQ(joined->num_steps(), schedule.num_steps());
  const Step& middle = joined->programs.front().steps[5];
  ASSERT_EQ(middle.size(), 4u);
  for (const Op& op : middle) {
    EXPECT_EQ(op.chunks.size(), 4);
    EXPECT_EQ(op.chunks.begin % 4, 0);
    EXPECT_EQ(op.peer, op.kind == OpKind::send ? 1 : 7);
  }
  // Nothing to join: ring's one send and one receive a step; adjacent chunks to two peers.
  EXPECT_FALSE(simulator::joined_transfers(make_schedule("ring", Collective::allreduce, 8)).has_value());
  RankProgram apart;
  apart.steps.push_back({Op{OpKind::send, 1, {0, 1}}, Op{OpKind::send, 2, {1, 2}}, Op{OpKind::recv, 7, {2, 3}},
                         Op{OpKind::recv, 6, {3, 4}}});
  EXPECT_FALSE(simulator::joined_transfers(make_circulant("apart", Collective::allreduce, 8, 8, apart)).has_value());
}

}  // namespace
}  // namespace ringlab
