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

// Seconds on the grid of `unit` seconds a tick (closed_form_circulant.cpp's tick_grid chooses it).
// Times are never negative, so rounding is adding a half and truncating (no libm call: the
// walks convert every rank's loads at every step).
struct TickGrid {
  double unit = 1;
  double ticks_per_second = 1;
  Ticks ticks(double seconds) const { return static_cast<Ticks>(seconds * ticks_per_second + 0.5); }
  double seconds(Ticks value) const { return unit * static_cast<double>(value); }
};

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

// The same for a run on a network whose route costs repeat every `period` ranks but differ within
// it (closed_form_periodic.cpp: a torus's row, a dragonfly's group): slot i is rank i - frame, so
// its routes, hence its port loads, are those of phase (i - frame) mod period and turn against
// the slots. A slot that reads a rank whose phase's routes differ from the phase q after runs a
// different operator than in the step before: it is computed whatever its sources did (a torus's
// row ends: O(rows) slots a step), and such a run is never added in one go.
struct PhasedRunOp {
  std::size_t offset = 0;  // the peer: slot + offset (mod N)
  bool sending = false;
  std::span<const Ticks> latency;            // [phase]: the route's, from the slot (send) or to it
  std::span<const double> seconds_per_byte;  // [phase]
  std::span<const double> bytes;             // [slot]: the run's first step's
};
struct PhasedRun {
  std::size_t period = 1;
  std::size_t frame = 0;  // finish[i] (as given) is rank i - frame's
  TickGrid grid;
  std::span<const Ticks> reduction;  // [slot]: gamma x the bytes it reduces
};
RotatedRunWalk walk_phased_run(const PhasedRun& run, std::span<const PhasedRunOp> ops, std::size_t q, int steps,
                               std::vector<Ticks>& finish, std::span<const Ticks> before_turn);

}  // namespace ringlab::simulator
