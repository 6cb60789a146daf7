// The closed forms of docs/algorithms.md, shared by the verifier tests (test_schedules.cpp) and the
// simulator tests (test_simulator.cpp).
#pragma once

#include <string_view>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/schedule.hpp"

namespace ringlab {

// Closed forms with message size n = 1: step count, most bytes any rank sends (as a multiple of
// n), and the critical path as (alphas, multiples of n at beta, multiples of n at gamma).
struct ClosedForm {
  int steps = 0;
  double sent = 0;
  double alphas = 0;
  double beta = 0;
  double gamma = 0;
  // false where the critical path has no closed form here (double_binary_tree and nccl_tree, whose
  // pipelines fill unevenly): alphas, beta and gamma are then upper bounds (the slowest path may
  // skip steps; beta and gamma take each step's most on any path) and
  // steps x (alpha + min_step_beta n beta) is a lower bound on its time.
  bool exact_path = true;
  double min_step_beta = 0;
};

int log2_ceil(int n);
int log2_floor(int n);
// Fails the current test (ADD_FAILURE) for an algorithm without a closed form here.
ClosedForm closed_form(std::string_view algorithm, Collective collective, int nranks, const AlgorithmOptions& options);

}  // namespace ringlab
