// find_equivalence (collectives/schedule_equivalence.hpp): relabelled copies are found equal,
// with maps that carry A onto B; schedules that differ are told apart, by an invariant where one
// differs and by the search where every invariant agrees.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/schedule_equivalence.hpp"

namespace ringlab {
namespace {

// `schedule` with rank r renamed rank_of[r] and every chunk range shifted by `chunk_shift`
// (wrapping), each chunk cut into `split` chunks: the same schedule, relabelled.
Schedule relabelled(const Schedule& schedule, const std::vector<int>& rank_of, std::int64_t chunk_shift, int split) {
  Schedule out;
  out.algorithm = schedule.algorithm + "-relabelled";
  out.collective = schedule.collective;
  out.nranks = schedule.nranks;
  out.nchunks = schedule.nchunks * split;
  out.programs.resize(static_cast<std::size_t>(schedule.nranks));
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    RankProgram program = schedule.program(rank);
    for (Step& step : program.steps)
      for (Op& op : step) {
        op.peer = rank_of[static_cast<std::size_t>(op.peer)];
        const std::int64_t size = op.chunks.size() * split;
        op.chunks.begin = (op.chunks.begin * split + chunk_shift) % out.nchunks;
        op.chunks.end = op.chunks.begin + size;
      }
    out.programs[static_cast<std::size_t>(rank_of[static_cast<std::size_t>(rank)])] = std::move(program);
  }
  return out;
}

std::vector<int> shuffled_ranks(int nranks, unsigned seed) {
  std::vector<int> ranks(static_cast<std::size_t>(nranks));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::mt19937 generator(seed);
  std::shuffle(ranks.begin(), ranks.end(), generator);
  return ranks;
}

// Applies the result's maps to A and checks every op lands on B's (the result's own claim).
void expect_maps_carry(const Schedule& a, const Schedule& b, const EquivalenceResult& result) {
  ASSERT_EQ(result.rank_map.size(), static_cast<std::size_t>(a.nranks));
  std::vector<std::int64_t> chunk_image_start(static_cast<std::size_t>(a.nchunks), -1);
  for (const BlockPair& block : result.block_map) {
    ASSERT_FALSE(block.a_chunks.empty());
    ASSERT_EQ(block.a_chunks.size() * static_cast<std::size_t>(b.nchunks),
              block.b_chunks.size() * static_cast<std::size_t>(a.nchunks));
  }
  for (int rank = 0; rank < a.nranks; ++rank) {
    const RankProgram from = a.program(rank);
    const RankProgram to = b.program(result.rank_map[static_cast<std::size_t>(rank)]);
    ASSERT_EQ(from.steps.size(), to.steps.size());
    for (std::size_t k = 0; k < from.steps.size(); ++k) {
      ASSERT_EQ(from.steps[k].size(), to.steps[k].size()) << "rank " << rank << " step " << k;
      for (const Op& op : from.steps[k]) {
        const int peer = result.rank_map[static_cast<std::size_t>(op.peer)];
        const bool found = std::any_of(to.steps[k].begin(), to.steps[k].end(), [&](const Op& other) {
          return other.kind == op.kind && other.peer == peer &&
                 other.chunks.size() * a.nchunks == op.chunks.size() * b.nchunks;
        });
        EXPECT_TRUE(found) << "rank " << rank << " step " << k << ": no op of B to peer " << peer;
      }
    }
  }
}

TEST(ScheduleEquivalence, EveryAlgorithmEqualsItsRelabelledCopy) {
  for (const std::string& name : algorithm_names())
    for (int nranks : {1, 2, 3, 5, 8, 12}) {
      const Schedule a = make_schedule(name, Collective::allreduce, nranks);
      for (int split : {1, 2}) {
        const Schedule b = relabelled(a, shuffled_ranks(nranks, static_cast<unsigned>(nranks * 7 + split)), 1, split);
        const EquivalenceResult result = find_equivalence(a, b);
        EXPECT_TRUE(result.equivalent) << name << " N = " << nranks << " split " << split << ": " << result.difference;
        if (result.equivalent) expect_maps_carry(a, b, result);
      }
    }
}

TEST(ScheduleEquivalence, ParameterServerWorkersAreInterchangeable) {
  const Schedule a = make_schedule("parameter_server", Collective::allreduce, 9);
  const Schedule b = relabelled(a, shuffled_ranks(9, 3), 0, 1);
  const EquivalenceResult result = find_equivalence(a, b);
  ASSERT_TRUE(result.equivalent) << result.difference;
  EXPECT_EQ(result.rank_map[0], shuffled_ranks(9, 3)[0]);  // the server (rank 0) maps to the server
}

TEST(ScheduleEquivalence, AnInvariantNamesTheFirstDifference) {
  const Schedule ring = make_schedule("ring", Collective::allreduce, 8);
  const Schedule halving = make_schedule("halving_doubling", Collective::allreduce, 8);
  const EquivalenceResult steps = find_equivalence(ring, halving);
  EXPECT_FALSE(steps.equivalent);
  EXPECT_TRUE(steps.decided);
  EXPECT_EQ(steps.difference, "A has 14 steps, B has 6");
  EXPECT_EQ(find_equivalence(ring, make_schedule("ring", Collective::allreduce, 4)).difference, "A has 8 ranks, B has 4");
  EXPECT_EQ(find_equivalence(ring, make_schedule("ring", Collective::allgather, 8)).difference,
            "A is allreduce, B is allgather");
}

// Two exchanges of the whole buffer per rank: across {0,1},{2,3} then {0,2},{1,3} (a butterfly),
// or {0,1},{2,3} twice. Every rank does the same ops in every step, so only the search tells them apart.
// With `chunks` = 1 of 2 chunks instead, each exchange moves half the buffer.
Schedule pair_exchanges(const std::vector<std::vector<int>>& partner_per_step, std::int64_t chunks = 2) {
  Schedule schedule;
  schedule.algorithm = "pairs";
  schedule.nranks = 4;
  schedule.nchunks = 2;
  schedule.programs.resize(4);
  for (const auto& partner : partner_per_step)
    for (int rank = 0; rank < 4; ++rank)
      schedule.programs[static_cast<std::size_t>(rank)].steps.push_back(
          {Op{OpKind::send, partner[static_cast<std::size_t>(rank)], {0, chunks}},
           Op{OpKind::recv_reduce, partner[static_cast<std::size_t>(rank)], {0, chunks}}});
  return schedule;
}

TEST(ScheduleEquivalence, TheSearchTellsApartWhatNoInvariantDoes) {
  const Schedule butterfly = pair_exchanges({{1, 0, 3, 2}, {2, 3, 0, 1}});
  const Schedule repeated = pair_exchanges({{1, 0, 3, 2}, {1, 0, 3, 2}});
  const Schedule other_butterfly = pair_exchanges({{3, 2, 1, 0}, {1, 0, 3, 2}});
  const EquivalenceResult different = find_equivalence(butterfly, repeated);
  EXPECT_FALSE(different.equivalent);
  EXPECT_TRUE(different.decided);
  EXPECT_NE(different.difference.find("no relabelling"), std::string::npos) << different.difference;
  const EquivalenceResult same = find_equivalence(butterfly, other_butterfly);
  ASSERT_TRUE(same.equivalent) << same.difference;
  expect_maps_carry(butterfly, other_butterfly, same);
  // Same steps and partners, half the bytes: the first step says so.
  const EquivalenceResult fractions = find_equivalence(butterfly, pair_exchanges({{1, 0, 3, 2}, {2, 3, 0, 1}}, 1));
  EXPECT_FALSE(fractions.equivalent);
  EXPECT_EQ(fractions.difference, "step 0: 4 ranks of A and 0 of B do [send 1/1, recv_reduce 1/1] (fractions of the buffer)");
}

TEST(ScheduleEquivalence, ASearchLimitIsReportedAsUndecided) {
  const Schedule a = make_schedule("parameter_server", Collective::allreduce, 6);
  const EquivalenceResult result = find_equivalence(a, relabelled(a, shuffled_ranks(6, 5), 0, 1), 1);
  EXPECT_FALSE(result.equivalent);
  EXPECT_FALSE(result.decided);
  EXPECT_NE(result.difference.find("undecided"), std::string::npos);
}

TEST(ScheduleEquivalence, ChunkListsAreWrittenAsRanges) {
  EXPECT_EQ(describe_chunks({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(describe_chunks({}), "");
}

}  // namespace
}  // namespace ringlab
