// The step rule's two homes on their own: the step plan (collectives/step_plan.hpp) where it goes
// beyond what the flow-level model asks of it (the backend's say, the output completed before
// posting), and the step clock (collectives/step_clock.hpp) on seconds and on a CriticalPath.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/element_coverage.hpp"
#include "collectives/step_clock.hpp"
#include "collectives/step_plan.hpp"
#include "collectives/verify.hpp"

namespace ringlab {
namespace {

const CombinesOnReceive every_peer = [](int /*peer*/) { return true; };

TEST(StepPlan, AReducingReceiveGoesToScratchWhereTheBackendCannotCombineFromItsPeer) {
  ElementCoverage in_output;
  const std::vector<Op> ops{{OpKind::recv_reduce, 1, {0, 1}}, {OpKind::recv_reduce, 2, {1, 2}}, {OpKind::recv, 2, {2, 3}}};
  StepPlan plan;
  plan_step(ops, {12, 3, 4}, in_output, [](int peer) { return peer != 2; }, plan);
  ASSERT_EQ(plan.receives.size(), 3u);
  EXPECT_FALSE(plan.receives[0].to_scratch);
  EXPECT_TRUE(plan.receives[1].to_scratch);   // reduces, from peer 2
  EXPECT_FALSE(plan.receives[2].to_scratch);  // a plain receive needs no combining
  EXPECT_TRUE(plan.sends.empty());
  EXPECT_TRUE(plan.completions.empty());
}

TEST(StepPlan, ReceivesIntoScratchLieThereOneAfterAnotherInPostingOrder) {
  ElementCoverage in_output;
  // 12 elements in 3 chunks of 4, pieces of 3: chunk 0 is pieces [0,3) [3,4), chunk 2 [8,11) [11,12).
  const std::vector<Op> ops{{OpKind::recv_reduce, 2, {0, 1}}, {OpKind::recv_reduce, 1, {1, 2}},
                            {OpKind::recv_reduce, 2, {2, 3}}};
  StepPlan plan;
  plan_step(ops, {12, 3, 3}, in_output, [](int peer) { return peer != 2; }, plan);
  ASSERT_EQ(plan.receives.size(), 6u);
  EXPECT_EQ(plan.scratch_elements, 8);  // chunks 0 and 2, from peer 2
  EXPECT_EQ(plan.receives[0].scratch_first, 0);
  EXPECT_EQ(plan.receives[1].scratch_first, 3);
  EXPECT_FALSE(plan.receives[2].to_scratch);  // chunk 1, from peer 1, lands in the output
  EXPECT_EQ(plan.receives[4].scratch_first, 4);
  EXPECT_EQ(plan.receives[5].scratch_first, 7);
}

TEST(StepPlan, APieceReadFromTheOutputIsFirstCompletedThere) {
  ElementCoverage in_output;
  in_output.add(2, 3);  // an earlier step wrote element 2 of chunk 0 (elements 0-3)
  const std::vector<Op> ops{{OpKind::send, 1, {0, 1}}, {OpKind::recv_reduce, 1, {1, 2}}};
  StepPlan plan;
  plan_step(ops, {8, 2, 4}, in_output, every_peer, plan);
  ASSERT_EQ(plan.sends.size(), 1u);
  EXPECT_TRUE(plan.sends[0].reads_output);
  ASSERT_EQ(plan.completions.size(), 2u);  // elements 0-1 and 3 come from the input
  EXPECT_EQ(plan.completions[0].first, 0);
  EXPECT_EQ(plan.completions[0].last, 2);
  EXPECT_EQ(plan.completions[1].first, 3);
  EXPECT_EQ(plan.completions[1].last, 4);
  EXPECT_TRUE(in_output.covers(0, 4));
  ASSERT_EQ(plan.receives.size(), 1u);
  EXPECT_FALSE(plan.receives[0].reads_output);  // chunk 1's left operand is still in the input
  EXPECT_FALSE(plan.receives[0].to_scratch);
}

TEST(StepClock, ATransferStartsWhenBothEndsAreReadyAndTakesItsSlowerPort) {
  StepClock clock(1.0);
  EXPECT_EQ(clock.advance(0.5), 1.5);  // no transfer: the finish, then the reduction
  clock.transfer(1.0, 3.0, 0.25, 2.0, 0.5);
  EXPECT_EQ(clock.end(), 3.0 + 0.25 + 2.0);
  clock.transfer(1.0, 1.0, 0.25, 0.5, 0.5);  // ends earlier: the later transfer stands
  EXPECT_EQ(clock.end(), 5.25);
  EXPECT_EQ(clock.advance(0.75), 6.0);
}

TEST(StepClock, ACriticalPathCarriesItsTermsThroughTheRule) {
  const CriticalPath alpha{1.0, 1.0, 0.0, 0.0};
  auto at_beta = [](double bytes) { return CriticalPath{bytes * 0.5, 0.0, bytes, 0.0}; };
  StepClock clock(CriticalPath{});
  clock.transfer(CriticalPath{}, CriticalPath{}, alpha, at_beta(4.0), at_beta(6.0));
  const CriticalPath finish = clock.advance({0.25, 0.0, 0.0, 10.0});
  EXPECT_EQ(finish.seconds, 1.0 + 3.0 + 0.25);
  EXPECT_EQ(finish.latency_terms, 1.0);
  EXPECT_EQ(finish.beta_bytes, 6.0);  // the slower port's
  EXPECT_EQ(finish.gamma_bytes, 10.0);
  // Equal finishes: the path with more terms wins, so that the coefficients reported are stable.
  EXPECT_EQ(later_of(CriticalPath{2.0, 1.0, 0.0, 0.0}, CriticalPath{2.0, 2.0, 0.0, 0.0}).latency_terms, 2.0);
}

}  // namespace
}  // namespace ringlab
