// The closed form's walk through a run of circulant steps that are rotations of one another
// (ring's reduce-scatter, then its all-gather), once its first two steps have been walked.
//
// In the frame that turns with the run (slot i is rank i + frame, frame growing by q a step),
// the loads are the run's first step's for every step, so a step is one fixed max-plus operator:
//   x'[i] = max(A(i), max over ops k of max(A(i), A(i + o_k)) + duration_k(i)) + gamma * reduced[i],
//   A(j) = x[j - q],
// where x[i] is slot i's finish after a step. Slot i reads the slots i - q + {0, o_k} ("its
// sources"). When every source of a slot advanced by the same time d in a step, the slot advances
// by d in the next (a max-plus operator commutes with adding a constant). So only slots whose
// sources advanced unevenly are computed; the others are advanced lazily by their last advance.
// Where a few chunks are one element larger than the rest, the slots whose sources advance
// unevenly are the few at the edges of the regions those chunks delay: O(steps x edges) work
// instead of O(steps x N). Once no slot is uneven, the rest of the run is added in one go.
//
// Advances count as equal within `relative_tolerance` of the largest finish (rounding), so the
// result equals the step-by-step walk up to rounding: a difference under the tolerance is
// extrapolated over the run, so the tolerance must sit near the rounding of the values, which
// are held less a baseline (rotated_run.cpp) to keep that rounding small.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ringlab::simulator {

struct RotatedRunOp {
  std::size_t offset = 0;  // the peer: slot + offset (mod N), 0 <= offset < N
  bool sending = false;
  double latency_seconds = 0;
};

struct RotatedRunLoads {  // per slot, the run's first step's
  std::span<const double> outgoing_seconds;
  std::span<const double> incoming_seconds;
  std::span<const double> reduced_bytes;
};

struct RotatedRunWalk {
  int steps_extrapolated = 0;  // steps added in one go once no slot was uneven
};

// Walks `steps` more steps of the run. finish: each slot's finish after the run's latest step
// (replaced by each slot's finish after the last of the `steps`); before_turn: the same array
// one step earlier turned by q (before_turn[i] is slot i - q's), as the step-by-step walk holds
// it. The caller turns its frame by steps * q.
RotatedRunWalk walk_rotated_run(const RotatedRunLoads& loads, std::span<const RotatedRunOp> ops, std::size_t q,
                                double gamma_seconds_per_byte, int steps, std::vector<double>& finish,
                                std::span<const double> before_turn, double relative_tolerance);

}  // namespace ringlab::simulator
