// The step clock: the one home of the contention-free rule for what a step of a schedule costs a
// rank, which the verifier's critical_path and every path of the simulator's closed form price by.
//
//   A transfer s -> d of a step starts when both s and d have finished their previous step and
//   lasts the route's latency plus the slower of s's outgoing port and d's incoming port (each
//   port carries all the step's sends, respectively receives, of its rank). The rank's step ends
//   when the last of its transfers has ended (at once when it has none); the rank then reduces
//   what it received to reduce (gamma x bytes, not overlapped with the transfers). So, per rank:
//     end  = max(finish, max over transfers of max(finish[s], finish[d]) + latency + max(out[s], in[d]))
//     next = end + reduction
//
// Time is any value type with `+` and a `later_of`: seconds (double), whole ticks of a fixed grid
// (the closed form's rotated runs), or a CriticalPath (verify.hpp: seconds with the alpha, beta
// and gamma terms they came from). Every cost is a time >= 0.
#pragma once

#include <algorithm>
#include <type_traits>

namespace ringlab {

// The later of two times, the first on a tie. A class time provides its own (found by ADL).
template <typename Time>
  requires std::is_arithmetic_v<Time>
constexpr Time later_of(Time a, Time b) {
  return std::max(a, b);
}

// One rank's clock through one step: built at the rank's finish of the step before, told of each
// of the rank's transfers, then advanced by its reduction.
template <typename Time>
class StepClock {
 public:
  constexpr explicit StepClock(const Time& finish) : end_(finish) {}

  // A transfer whose sender and receiver finished the step before at sender_finish and
  // receiver_finish, over a route of `latency`, with the sender's outgoing and the receiver's
  // incoming port loads of the step.
  constexpr void transfer(const Time& sender_finish, const Time& receiver_finish, const Time& latency,
                          const Time& outgoing, const Time& incoming) {
    end_ = later_of(end_, later_of(sender_finish, receiver_finish) + (latency + later_of(outgoing, incoming)));
  }

  // When the rank's last transfer so far ends (its finish before the step when it has none).
  constexpr const Time& end() const { return end_; }

  // The rank's finish of the step: its transfers' end, then its reduction.
  constexpr Time advance(const Time& reduction) const { return end_ + reduction; }

 private:
  Time end_;
};

}  // namespace ringlab
