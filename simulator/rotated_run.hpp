// The closed form's walk through a run of circulant steps that are rotations of one another
// (ring's reduce-scatter, then its all-gather), once its first two steps have been walked.
//
// In the frame that turns with the run (slot i is rank i + frame, frame growing by q a step),
// the loads are the run's first step's for every step, so a step is one fixed max-plus operator:
//   x'[i] = max(A(i), max over ops k of max(A(i), A(i + o_k)) + duration_k(i)) + reduction[i],
//   A(j) = x[j - q],
// where x[i] is slot i's finish after a step. Slot i reads the slots i - q + {0, o_k} ("its
// sources"). When every source of a slot advanced by the same time d in a step, the slot advances
// by d in the next (a max-plus operator commutes with adding a constant). So only slots whose
// sources advanced unevenly are computed; the others are advanced lazily by their last advance.
// Where a few chunks are one element larger than the rest, the slots whose sources advance
// unevenly are the few at the edges of the regions those chunks delay: O(steps x edges) work
// instead of O(steps x N). Once no slot is uneven, the rest of the run is added in one go.
//
// Times are whole ticks of a fixed grid (TickGrid, closed_form.cpp; the whole circulant walk of a
// schedule with such runs is on it, from its first step): sums and maxima are exact,
// so slots that advance alike advance by exactly the same number of ticks and "even" is plain
// equality. In doubles, rounding kept advances that are equal in exact arithmetic apart by a
// few units in the last place, and thousands of slots never settled (ring at N = 65521).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ringlab::simulator {

using Ticks = std::int64_t;  // a time on the closed form's grid

struct RotatedRunOp {
  std::size_t offset = 0;  // the peer: slot + offset (mod N), 0 <= offset < N
  bool sending = false;
  Ticks latency = 0;
};

struct RotatedRunLoads {  // per slot, the run's first step's
  std::span<const Ticks> outgoing;
  std::span<const Ticks> incoming;
  std::span<const Ticks> reduction;  // gamma x the bytes it reduces
};

struct RotatedRunWalk {
  int steps_extrapolated = 0;  // steps added in one go once no slot was uneven
};

// Walks `steps` more steps of the run. finish: each slot's finish after the run's latest step
// (replaced by each slot's finish after the last of the `steps`); before_turn: the same array
// one step earlier turned by q (before_turn[i] is slot i - q's), as the step-by-step walk holds
// it. The caller turns its frame by steps * q.
RotatedRunWalk walk_rotated_run(const RotatedRunLoads& loads, std::span<const RotatedRunOp> ops, std::size_t q,
                                int steps, std::vector<Ticks>& finish, std::span<const Ticks> before_turn);

}  // namespace ringlab::simulator
