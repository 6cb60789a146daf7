// The verifier proves every algorithm x collective for N = 1..64 and N in {96, 128, 255, 256} (1..64
// under ASan: tests/sanitizer_scale.hpp), and
// the figures it derives from each schedule (steps, bytes sent per rank, alpha-beta-gamma critical
// path) equal the closed forms of docs/algorithms.md.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/algorithms/bine_pairs.hpp"
#include "collectives/algorithms/swing_pairs.hpp"
#include "tests/closed_forms.hpp"
#include "tests/sanitizer_scale.hpp"
#include "collectives/schedule_io.hpp"
#include "collectives/verify.hpp"

namespace ringlab {
namespace {

std::vector<int> verified_rank_counts() {
  std::vector<int> counts;
  for (int n = 1; n <= 64; ++n) counts.push_back(n);
  for (int n : {96, 128, 255, 256})
    if (test_scale::runs_at(n)) counts.push_back(n);
  return counts;
}

struct ScheduleCase {
  std::string algorithm;
  Collective collective;
  AlgorithmOptions options;
  std::string label;
};

std::vector<ScheduleCase> schedule_cases() {
  std::vector<ScheduleCase> cases;
  for (const AlgorithmInfo& info : algorithms())
    for (Collective collective : info.collectives)
      cases.push_back({std::string(info.name), collective, {}, fmt::format("{}_{}", info.name, name_of(collective))});
  // Parameter-server variants: a root other than 0, and 2 shards.
  cases.push_back({"parameter_server", Collective::allreduce, {3, 1}, "parameter_server_allreduce_root3"});
  cases.push_back({"parameter_server", Collective::allreduce, {0, 2}, "parameter_server_allreduce_2shards"});
  cases.push_back({"parameter_server", Collective::allreduce, {0, -1}, "parameter_server_allreduce_Nshards"});
  cases.push_back({"ring", Collective::broadcast, {2, 1}, "ring_broadcast_root2"});
  cases.push_back({"recursive_doubling", Collective::broadcast, {5, 1}, "recursive_doubling_broadcast_root5"});
  // hierarchical at other group sizes (4 falls back to 2 or 1 where 4 does not divide N) and inner algorithms.
  cases.push_back({"hierarchical", Collective::allreduce, {0, 1, 4, "ring"}, "hierarchical_allreduce_groups4"});
  cases.push_back({"hierarchical", Collective::allreduce, {0, 1, 8, "halving_doubling"}, "hierarchical_allreduce_groups8_hd"});
  cases.push_back({"hierarchical", Collective::allreduce, {0, 1, 3, "interval_paired"}, "hierarchical_allreduce_groups3_ip"});
  cases.push_back({"hierarchical", Collective::allreduce, {0, 1, 2, "double_binary_tree"}, "hierarchical_allreduce_groups2_dbt"});
  // bruck_bounded with room for 2, 3 and 64 blocks a step (the default is 1).
  cases.push_back({"bruck_bounded", Collective::allreduce, {0, 1, 0, "ring", 0, 0, 2}, "bruck_bounded_allreduce_b2"});
  cases.push_back({"bruck_bounded", Collective::reduce_scatter, {0, 1, 0, "ring", 0, 0, 3}, "bruck_bounded_reduce_scatter_b3"});
  cases.push_back({"bruck_bounded", Collective::allgather, {0, 1, 0, "ring", 0, 0, 64}, "bruck_bounded_allgather_b64"});
  // nccl_ring: 3 channels of 4 slices over nodes of 4 (or the largest divisor below).
  cases.push_back({"nccl_ring", Collective::allreduce, {0, 1, 4, "ring", 3, 4}, "nccl_ring_allreduce_3channels_4slices"});
  // double_binary_tree with 1 and 16 segments a tree (the default is 4).
  for (int segments : {1, 16})
    cases.push_back({"double_binary_tree", Collective::allreduce, {0, 1, 0, "ring", 0, segments},
                     fmt::format("double_binary_tree_allreduce_{}segments", segments)});
  // nccl_tree: nodes of 2, 3 and 8 (or the largest divisor below), 4 segments a tree.
  for (int group_size : {2, 3, 8})
    cases.push_back({"nccl_tree", Collective::allreduce, {0, 1, group_size, "ring", 0, 4}, fmt::format("nccl_tree_allreduce_groups{}", group_size)});
  return cases;
}

class Schedules : public ::testing::TestWithParam<ScheduleCase> {};

TEST_P(Schedules, VerifiesAndMatchesClosedFormsForEveryRankCount) {
  const ScheduleCase& param = GetParam();
  for (int nranks : verified_rank_counts()) {
    // nccl_ring's 24 default channels make 6 million ops at N = 256 (a minute under ASan in CI):
    // verified to 64 here; the 3-channel case below and `ringlab verify --ranks 1..256` go further.
    if (param.label == "nccl_ring_allreduce" && nranks > 64) continue;
    AlgorithmOptions options = param.options;
    if (options.root >= nranks) options.root = nranks - 1;
    if (options.shards == -1 || options.shards > nranks) options.shards = nranks;
    const Schedule schedule = make_schedule(param.algorithm, param.collective, nranks, options);
    const VerifyResult result = verify(schedule);
    ASSERT_TRUE(result.ok()) << "N=" << nranks << ": " << (result.errors.empty() ? "" : result.errors.front());
    const ClosedForm expected = closed_form(param.algorithm, param.collective, nranks, options);
    EXPECT_EQ(result.steps, expected.steps) << "N=" << nranks;
    EXPECT_NEAR(result.max_sent_fraction, expected.sent, 1e-9) << "N=" << nranks;
    const CostModel model{2e-6, 1e-10, 3e-11};
    const double bytes = 1 << 20;
    const CriticalPath path = critical_path(schedule, model, bytes);
    if (expected.exact_path) EXPECT_NEAR(path.latency_terms, expected.alphas, 1e-9) << "N=" << nranks;
    else EXPECT_LE(path.latency_terms, expected.alphas + 1e-9) << "N=" << nranks;
    const double closed_seconds = expected.alphas * model.alpha_seconds + expected.beta * bytes * model.beta_seconds_per_byte +
                                  expected.gamma * bytes * model.gamma_seconds_per_byte;
    if (!expected.exact_path) {
      EXPECT_LE(path.beta_bytes / bytes, expected.beta + 1e-9) << "N=" << nranks;
      EXPECT_LE(path.gamma_bytes / bytes, expected.gamma + 1e-9) << "N=" << nranks;
      EXPECT_LE(path.seconds, closed_seconds * (1 + 1e-9)) << "N=" << nranks;
      EXPECT_GE(path.seconds, expected.steps * (model.alpha_seconds + expected.min_step_beta * bytes * model.beta_seconds_per_byte) *
                                  (1 - 1e-9)) << "N=" << nranks;
      continue;
    }
    EXPECT_NEAR(path.beta_bytes / bytes, expected.beta, 1e-9) << "N=" << nranks;
    EXPECT_NEAR(path.gamma_bytes / bytes, expected.gamma, 1e-9) << "N=" << nranks;
    EXPECT_NEAR(path.seconds, closed_seconds, 1e-9 * std::max(1.0, closed_seconds)) << "N=" << nranks;
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, Schedules, ::testing::ValuesIn(schedule_cases()),
                         [](const ::testing::TestParamInfo<ScheduleCase>& param_info) { return param_info.param.label; });

TEST(ScheduleClosedForms, HierarchicalGroupsAndCostsWorkedByHand) {
  // Groups: the largest divisor of N not above G (0: the largest with g * g <= N).
  const int groups[][3] = {{32, 8, 8}, {12, 8, 6}, {7, 4, 1}, {5, 8, 5}, {256, 8, 8}, {16, 0, 4}, {8, 0, 2}, {12, 0, 3}, {7, 0, 1}, {1, 0, 1}};
  for (const auto& [nranks, requested, expected] : groups) EXPECT_EQ(hierarchical_group_size(nranks, requested), expected) << nranks << " " << requested;
  // N = 32, G = 8, inner ring at M = 4: 2 x 7 + 2 x 3 = 20 steps; sent 2 x 7/8 + 2 x 3/(4 x 8) = 1.9375 n.
  // N = 12, G = 8 -> 6, M = 2: 2 x 5 + 2 = 12 steps; sent 2 x 5/6 + 2 x 1/12 = 11/6 n. N = 7, G = 4 -> 1: the ring's 12.
  const double worked[][4] = {{32, 8, 20, 1.9375}, {12, 8, 12, 11.0 / 6}, {7, 4, 12, 12.0 / 7}, {64, 8, 28, 2 * 7.0 / 8 + 2 * 7.0 / 64}};
  for (const auto& [nranks, group_size, steps, sent] : worked) {
    const Schedule schedule = make_schedule("hierarchical", Collective::allreduce, static_cast<int>(nranks), {0, 1, static_cast<int>(group_size), "ring"});
    const VerifyResult result = verify(schedule);
    ASSERT_TRUE(result.ok()) << nranks;
    EXPECT_EQ(result.steps, static_cast<int>(steps)) << nranks;
    EXPECT_NEAR(result.max_sent_fraction, sent, 1e-12) << nranks;
  }
  // Across groups only the inner steps leave a group: N = 32, G = 8, rank 13 (group 1, local 5)
  // meets ranks 12 and 14 in the rings and 21 and 5 (local 5 of groups 2 and 0) across.
  const RankProgram program = make_schedule("hierarchical", Collective::allreduce, 32, {0, 1, 8, "ring"}).program(13);
  for (int step = 0; step < 20; ++step) {
    const bool across = step >= 7 && step < 13;
    for (const Op& op : program.steps[static_cast<std::size_t>(step)])
      EXPECT_EQ(op.peer, across ? (op.kind == OpKind::send ? 21 : 5) : (op.kind == OpKind::send ? 14 : 12)) << step;
  }
  EXPECT_THROW(make_schedule("hierarchical", Collective::allreduce, 8, {0, 1, 2, "hierarchical"}), std::invalid_argument);
  EXPECT_THROW(make_schedule("hierarchical", Collective::allreduce, 8, {0, 1, 2, "rign"}), std::invalid_argument);
  EXPECT_THROW(make_schedule("hierarchical", Collective::allreduce, 8, {0, 1, -1, "ring"}), std::invalid_argument);
}

TEST(ScheduleClosedForms, NcclRingChannelsLeaveNodesAtOtherRanks) {
  // Two nodes of 8, 8 channels: channel c runs through node 0 as c, c+1, ..., c-1, so it
  // crosses to node 1 from rank (c + 7) mod 8 to rank 8 + c: 8 distinct links between the nodes.
  const Schedule schedule = make_schedule("nccl_ring", Collective::allreduce, 16, {0, 1, 8, "ring", 8, 1});
  std::set<std::pair<int, int>> crossings;
  for (int rank = 0; rank < 8; ++rank) {
    const RankProgram program = schedule.program(rank);
    for (const Op& op : program.steps.front())
      if (op.kind == OpKind::send && op.peer >= 8) crossings.insert({rank, op.peer});
  }
  std::set<std::pair<int, int>> expected;
  for (int channel = 0; channel < 8; ++channel) expected.insert({(channel + 7) % 8, 8 + channel});
  EXPECT_EQ(crossings, expected);
  // One node (no --group-size): every channel is the cycle r -> r+1.
  const RankProgram one_node = make_schedule("nccl_ring", Collective::allreduce, 5, {0, 1, 0, "ring", 4, 2}).program(3);
  for (const Op& op : one_node.steps[1]) EXPECT_EQ(op.peer, op.kind == OpKind::send ? 4 : 2);
  EXPECT_THROW(make_schedule("nccl_ring", Collective::allreduce, 8, {0, 1, 0, "ring", 65, 1}), std::invalid_argument);
  EXPECT_THROW(make_schedule("nccl_ring", Collective::allreduce, 8, {0, 1, 0, "ring", 2, -1}), std::invalid_argument);
}

TEST(ScheduleClosedForms, SwingPairsAtThePapersDistances) {
  // rho(s) = (1 - (-2)^(s+1)) / 3: even ranks add it, odd ranks subtract it, modulo p.
  const std::int64_t rho[] = {1, -1, 3, -5, 11, -21, 43, -85};
  for (int step = 0; step < 8; ++step) EXPECT_EQ(swing_distance(step), rho[step]);
  EXPECT_EQ(swing_peer(0, 1, 8), 7);
  EXPECT_EQ(swing_peer(1, 2, 8), 6);
  EXPECT_EQ(swing_peer(6, 2, 8), 1);
  for (int power = 2; power <= 1024; power *= 2)
    for (int step = 0; (1 << step) < power; ++step)
      for (int rank = 0; rank < power; ++rank) EXPECT_EQ(swing_peer(swing_peer(rank, step, power), step, power), rank);
  // Both forms pair exactly these ranks: rank 0 of 16 meets 1, 15, 3, 11 (= -5 mod 16).
  for (const char* algorithm : {"swing", "swing_latency"}) {
    const RankProgram program = make_schedule(algorithm, Collective::allreduce, 16).program(0);
    const int peers[] = {1, 15, 3, 11};
    for (int step = 0; step < 4; ++step) EXPECT_EQ(program.steps[static_cast<std::size_t>(step)][0].peer, peers[step]);
  }
}

TEST(ScheduleClosedForms, BinePairsAtThePapersNegabinaryDistances) {
  // delta(s) is the negabinary number of s+1 ones: 1; 1-2 = -1; 1-2+4 = 3; 1-2+4-8 = -5.
  // Even ranks add it, odd ranks subtract it, modulo N. Worked out by hand from that rule:
  const int peers8[3][8] = {{1, 0, 3, 2, 5, 4, 7, 6},   // s = 0: +1 / -1
                            {7, 2, 1, 4, 3, 6, 5, 0},   // s = 1: -1 / +1
                            {3, 6, 5, 0, 7, 2, 1, 4}};  // s = 2: +3 / -3
  const int peers16[4][16] = {{1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14},
                              {15, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 0},
                              {3, 14, 5, 0, 7, 2, 9, 4, 11, 6, 13, 8, 15, 10, 1, 12},
                              {11, 6, 13, 8, 15, 10, 1, 12, 3, 14, 5, 0, 7, 2, 9, 4}};  // s = 3: -5 / +5
  for (int step = 0; step < 3; ++step)
    for (int rank = 0; rank < 8; ++rank) EXPECT_EQ(bine_peer(rank, step, 8), peers8[step][rank]) << step << " " << rank;
  for (int step = 0; step < 4; ++step)
    for (int rank = 0; rank < 16; ++rank) EXPECT_EQ(bine_peer(rank, step, 16), peers16[step][rank]) << step << " " << rank;
  // Blocks kept, N = 8 (3 digits hold -2 .. 5): r odd is read as r, r even as -r, modulo 8 into
  // that range; e.g. r = 6: -6 = 2 = 110, Gray code 101, reversed 101 = 5; r = 3: 111, Gray 100,
  // reversed 001 = 1.
  const std::vector<int> blocks8 = {0, 4, 6, 1, 3, 7, 5, 2};
  EXPECT_EQ(bine_blocks(8), blocks8);
  EXPECT_EQ(to_negabinary(-2), 0b10u);
  EXPECT_EQ(from_negabinary(0b111u), 3);
  for (int power = 2; power <= 1024; power *= 2) {
    std::vector<int> sorted = bine_blocks(power);
    std::sort(sorted.begin(), sorted.end());
    for (int block = 0; block < power; ++block) ASSERT_EQ(sorted[static_cast<std::size_t>(block)], block) << power;
    for (int step = 0; (1 << step) < power; ++step)
      for (int rank = 0; rank < power; ++rank) {
        // Mutual, and the paper's pairs are Swing's (its rho(s) is the same sequence).
        EXPECT_EQ(bine_peer(bine_peer(rank, step, power), step, power), rank);
        EXPECT_EQ(bine_peer(rank, step, power), swing_peer(rank, step, power));
      }
  }
  // bine and swing pair the same ranks but keep other blocks from N = 8: rank 4 reduces block 3
  // in bine (nu(4) = 3) and block 2 in swing, so its last reduce-scatter step receives another range.
  const RankProgram bine8 = make_schedule("bine", Collective::allreduce, 8).program(4);
  const RankProgram swing8 = make_schedule("swing", Collective::allreduce, 8).program(4);
  EXPECT_EQ(bine8.steps[2][1].chunks, (ChunkRange{3, 4}));
  EXPECT_EQ(swing8.steps[2][1].chunks, (ChunkRange{2, 3}));
}

TEST(ScheduleClosedForms, BruckSendsAtPowersOfTwoAtEveryRankCount) {
  // N = 5, all-gather: distances 1, 2, 4 sending min(d, N - d) = 1, 2, 1 blocks; rank 0 sends its
  // first blocks to 0 - d mod 5 = 4, 3, 1 and receives offsets [d, d + c) from d.
  const RankProgram gather = make_schedule("bruck", Collective::allgather, 5).program(0);
  const int to[] = {4, 3, 1};
  const ChunkRange sent[] = {{0, 1}, {0, 2}, {0, 1}};
  const ChunkRange received[] = {{1, 2}, {2, 4}, {4, 5}};
  ASSERT_EQ(gather.steps.size(), 3u);
  for (std::size_t step = 0; step < 3; ++step) {
    EXPECT_EQ(gather.steps[step][0].peer, to[step]);
    EXPECT_EQ(gather.steps[step][0].chunks, sent[step]);
    EXPECT_EQ(gather.steps[step][1].peer, 1 << step);
    EXPECT_EQ(gather.steps[step][1].chunks, received[step]);
  }
  // At N = 2^K and 2^K - 1 interval_paired's ceiling halving gives bruck's windows N, 2^(K-1), ..., 1.
  for (int nranks : {2, 3, 4, 7, 8, 15, 64})
    for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
      const Schedule bruck_schedule = make_schedule("bruck", collective, nranks);
      const Schedule paired = make_schedule("interval_paired", collective, nranks);
      for (int rank = 0; rank < nranks; ++rank) EXPECT_EQ(bruck_schedule.program(rank).steps, paired.program(rank).steps);
    }
  for (int nranks : {5, 6, 9, 12})
    EXPECT_NE(make_schedule("bruck", Collective::allgather, nranks).program(0).steps,
              make_schedule("interval_paired", Collective::allgather, nranks).program(0).steps);
}

TEST(ScheduleClosedForms, BruckBoundedSendsAtMostItsStepBlocks) {
  // N = 10, B = 3, all-gather windows 1, 2, 4, 7, 10: steps send 1, 2, 3, 3 blocks, to 0 - s mod 10.
  AlgorithmOptions three;
  three.step_blocks = 3;
  const RankProgram gather = make_schedule("bruck_bounded", Collective::allgather, 10, three).program(0);
  const int to[] = {9, 8, 6, 3};
  const ChunkRange sent[] = {{0, 1}, {0, 2}, {0, 3}, {0, 3}};
  ASSERT_EQ(gather.steps.size(), 4u);
  for (std::size_t step = 0; step < 4; ++step) {
    EXPECT_EQ(gather.steps[step][0].peer, to[step]);
    EXPECT_EQ(gather.steps[step][0].chunks, sent[step]);
  }
  // Room for half the blocks or more: bruck itself. One block a step: N - 1 steps.
  for (int nranks : {2, 5, 8, 12, 33})
    for (Collective collective : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather}) {
      AlgorithmOptions half;
      half.step_blocks = (nranks + 1) / 2;
      const Schedule bounded = make_schedule("bruck_bounded", collective, nranks, half);
      const Schedule bruck_schedule = make_schedule("bruck", collective, nranks);
      for (int rank = 0; rank < nranks; ++rank) EXPECT_EQ(bounded.program(rank).steps, bruck_schedule.program(rank).steps);
    }
  EXPECT_EQ(make_schedule("bruck_bounded", Collective::allgather, 12).program(5).steps.size(), 11u);
  AlgorithmOptions none;
  none.step_blocks = 0;
  EXPECT_THROW(make_schedule("bruck_bounded", Collective::allgather, 4, none), std::invalid_argument);
}

// Each rank's parent in a tree of a double_binary_tree or nccl_tree schedule: the rank it receives
// (plain recv) the tree's first chunk from; -1 for the root.
std::vector<int> schedule_tree_parents(const Schedule& schedule, std::int64_t first_chunk) {
  const int nranks = schedule.nranks;
  std::vector<int> parents(static_cast<std::size_t>(nranks), -1);
  for (int rank = 0; rank < nranks; ++rank)
    for (const Step& step : schedule.program(rank).steps)
      for (const Op& op : step)
        if (op.kind == OpKind::recv && op.chunks == ChunkRange{first_chunk, first_chunk + 1}) {
          EXPECT_EQ(parents[static_cast<std::size_t>(rank)], -1) << "rank " << rank << " has two parents";
          parents[static_cast<std::size_t>(rank)] = op.peer;
        }
  return parents;
}

std::vector<int> tree_parents(int nranks, std::int64_t first_chunk) {
  return schedule_tree_parents(make_schedule("double_binary_tree", Collective::allreduce, nranks), first_chunk);
}

TEST(ScheduleClosedForms, NcclTreeChainsNodesAndLinksThemByNcclsBalancedPattern) {
  // 4 nodes of 4. Tree 0 over nodes: 2 under 0 (type 1: lands on rank 0), 1 under 2 (type 0:
  // on local 1, rank 9), 3 under 2 (type 1: rank 8). Chains 4k -> 4k+1 -> 4k+2 -> 4k+3.
  const Schedule schedule = make_schedule("nccl_tree", Collective::allreduce, 16, {0, 1, 4, "ring", 0, 2});
  EXPECT_EQ(schedule_tree_parents(schedule, 0), (std::vector<int>{-1, 0, 1, 2, 9, 4, 5, 6, 0, 8, 9, 10, 8, 12, 13, 14}));
  // Tree 1 mirrors the nodes (m -> 3 - m): root node 3; node 1 under 3 (in tree-0 coordinates 2
  // under 0: type 1, rank 12); node 2 under 1 (1 under 2: type 0, rank 5); node 0 under 1 (type 1, rank 4).
  EXPECT_EQ(schedule_tree_parents(schedule, 2), (std::vector<int>{4, 0, 1, 2, 12, 4, 5, 6, 5, 8, 9, 10, -1, 12, 13, 14}));
  // G = 1 at N = 2^K with 4 segments is double_binary_tree itself.
  for (int nranks : {2, 4, 8, 16, 32}) {
    const Schedule tree = make_schedule("nccl_tree", Collective::allreduce, nranks, {0, 1, 1, "ring", 0, 4});
    const Schedule reference = make_schedule("double_binary_tree", Collective::allreduce, nranks);
    for (int rank = 0; rank < nranks; ++rank) EXPECT_EQ(tree.program(rank).steps, reference.program(rank).steps) << nranks;
  }
}

TEST(ScheduleClosedForms, DoubleBinaryTreeBuildsNcclsTreesAndPipelinesFourSegments) {
  // By hand from the rule (r's parent clears r's lowest bit b and sets 2b, only clears it past N):
  // N = 12, tree 0: 8 under 0; 4, 10 under 8; 2, 6 under 4; ... Tree 1 mirrors it (r -> 11 - r):
  // 3 under 11; 1, 7 under 3; ... (NCCL's drawing of 12 ranks). N = 5: tree 0 4 under 0, 2 under 4,
  // 1 and 3 under 2; tree 1 shifts it by one (r -> r + 1 mod 5): root 1.
  EXPECT_EQ(tree_parents(12, 0), (std::vector<int>{-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 8, 10}));
  EXPECT_EQ(tree_parents(12, 4), (std::vector<int>{1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, -1}));
  EXPECT_EQ(tree_parents(5, 0), (std::vector<int>{-1, 2, 4, 2, 0}));
  EXPECT_EQ(tree_parents(5, 4), (std::vector<int>{1, -1, 3, 0, 3}));
  // Every rank is a leaf in at least one tree, but rank 0 when N is odd; the 4 segments of a tree
  // all follow its first's tree.
  for (int nranks = 2; nranks <= 64; ++nranks) {
    std::vector<int> children(2 * static_cast<std::size_t>(nranks), 0);
    for (int tree = 0; tree < 2; ++tree) {
      const std::vector<int> parents = tree_parents(nranks, 4 * tree);
      for (int segment = 1; segment < 4; ++segment) EXPECT_EQ(tree_parents(nranks, 4 * tree + segment), parents);
      for (int parent : parents)
        if (parent >= 0) ++children[static_cast<std::size_t>(tree * nranks + parent)];
    }
    for (int rank = 0; rank < nranks; ++rank) {
      const bool leaf_somewhere = children[static_cast<std::size_t>(rank)] == 0 ||
                                  children[static_cast<std::size_t>(nranks + rank)] == 0;
      EXPECT_EQ(leaf_somewhere, !(rank == 0 && nranks % 2 == 1 && nranks > 1)) << "N=" << nranks << " rank " << rank;
    }
    // The pipeline never has a rank send a chunk in the step that receives it (sends would read
    // the value from before the receive).
    const Schedule schedule = make_schedule("double_binary_tree", Collective::allreduce, nranks);
    for (int rank = 0; rank < nranks; ++rank)
      for (const Step& step : schedule.program(rank).steps)
        for (const Op& sent : step)
          for (const Op& received : step)
            if (sent.kind == OpKind::send && received.kind != OpKind::send) {
              EXPECT_NE(sent.chunks, received.chunks) << "N=" << nranks << " rank " << rank;
            }
  }
}

TEST(ScheduleClosedForms, IntervalPairedHalvesTheIntervalAndSendsEachBlockOnce) {
  // N = 8: intervals 4, 2, 1 then 1, 2, 4; each rank sends 2(N-1) = 14 blocks.
  const Schedule schedule = make_schedule("interval_paired", Collective::allreduce, 8);
  const RankProgram program = schedule.program(3);
  ASSERT_EQ(program.steps.size(), 6U);
  const int intervals[] = {4, 2, 1, 1, 2, 4};
  std::int64_t blocks = 0;
  for (std::size_t step = 0; step < 6; ++step) {
    for (const Op& op : program.steps[step]) {
      const int distance = (op.peer - 3 + 8) % 8;
      EXPECT_TRUE(distance == intervals[step] || distance == 8 - intervals[step]) << "step " << step;
      if (op.kind == OpKind::send) blocks += op.chunks.size();
    }
  }
  EXPECT_EQ(blocks, 14);
}

TEST(ScheduleClosedForms, CirculantScheduleForThousandsOfRanksIsSmall) {
  const Schedule ring_schedule = make_schedule("ring", Collective::allreduce, 4096);
  EXPECT_TRUE(ring_schedule.circulant);
  EXPECT_EQ(ring_schedule.num_steps(), 2 * 4095);
  EXPECT_EQ(ring_schedule.program(4095).steps[0][0].peer, 0);
  const Schedule paired = make_schedule("interval_paired", Collective::allreduce, 4096);
  EXPECT_EQ(paired.num_steps(), 24);
}

TEST(ScheduleJson, ExportHasTheDocumentedShapeAndRoundTrips) {
  for (const AlgorithmInfo& info : algorithms()) {
    for (Collective collective : info.collectives) {
      const Schedule schedule = make_schedule(info.name, collective, 6);
      const nlohmann::json document = to_json(schedule);
      EXPECT_EQ(document.at("schema"), "ringlab.schedule/1");
      EXPECT_EQ(document.at("algorithm"), info.name);
      EXPECT_EQ(document.at("collective"), name_of(collective));
      EXPECT_EQ(document.at("nranks"), 6);
      ASSERT_EQ(document.at("ranks").size(), 6U);
      const Schedule parsed = schedule_from_json(nlohmann::json::parse(document.dump()));
      EXPECT_TRUE(verify(parsed).ok());
      for (int rank = 0; rank < 6; ++rank) {
        const auto expected = schedule.program(rank).steps;
        const auto actual = parsed.program(rank).steps;
        EXPECT_EQ(expected, actual) << info.name << " " << name_of(collective) << " rank " << rank;
      }
    }
  }
  const nlohmann::json ring4 = to_json(make_schedule("ring", Collective::allreduce, 4));
  const nlohmann::json first_op = ring4["ranks"][0]["steps"][0][0];
  EXPECT_EQ(first_op.at("op"), "send");
  EXPECT_EQ(first_op.at("peer"), 1);
  EXPECT_EQ(first_op.at("chunks"), nlohmann::json::array({3, 4}));
}

}  // namespace
}  // namespace ringlab
