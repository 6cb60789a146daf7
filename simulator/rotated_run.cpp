#include "simulator/rotated_run.hpp"

#include <algorithm>

#include "collectives/step_clock.hpp"

namespace ringlab::simulator {
namespace {

// Each slot's finish held lazily: its value at step `stamp` plus one advance per step since.
class LazyFinish {
 public:
  LazyFinish(std::span<const Ticks> finish, std::span<const Ticks> before_turn, std::size_t q)
      : base_(finish.begin(), finish.end()), advance_(finish.size()), stamp_(finish.size(), 0) {
    const std::size_t n = finish.size();
    for (std::size_t slot = 0; slot < n; ++slot) {
      const std::size_t before = slot + q < n ? slot + q : slot + q - n;  // before_turn[slot + q] is slot's
      advance_[slot] = finish[slot] - before_turn[before];
    }
  }
  Ticks at(std::size_t slot, int step) const { return base_[slot] + (step - stamp_[slot]) * advance_[slot]; }
  Ticks advance(std::size_t slot) const { return advance_[slot]; }
  // Slot's value after `step`; returns its advance in that step.
  Ticks set(std::size_t slot, int step, Ticks value) {
    const Ticks advance = value - at(slot, step - 1);
    base_[slot] = value;
    stamp_[slot] = step;
    advance_[slot] = advance;
    return advance;
  }

 private:
  std::vector<Ticks> base_;
  std::vector<Ticks> advance_;
  std::vector<int> stamp_;
};

// The offsets (mod n) of the slots that slot i reads (i - q and i - q + each op's peer), once each.
std::vector<std::size_t> source_offsets(std::span<const RotatedRunOp> ops, std::size_t q, std::size_t n) {
  std::vector<std::size_t> offsets{(n - q) % n};
  for (const RotatedRunOp& op : ops) offsets.push_back((op.offset + n - q) % n);
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

// The lazy walk both runs share: `steps` steps from `finish` (before_turn: one step earlier,
// turned by q), computing each step only the slots that are uneven or forced (forced(step, add)
// adds the slots whose operator differs from the step before's) with step_of(lazy, slot, step);
// once no slot is uneven and none can be forced again (forcing() false), the rest in one go.
template <typename StepOf, typename Forced>
RotatedRunWalk lazy_walk(std::span<const std::size_t> sources, std::size_t q, int steps, std::vector<Ticks>& finish,
                         std::span<const Ticks> before_turn, StepOf&& step_of, Forced&& forced, bool forcing) {
  const std::size_t n = finish.size();
  RotatedRunWalk walk;
  if (n == 0 || steps <= 0) return walk;
  auto wrap = [n](std::size_t index) { return index < n ? index : index - n; };
  LazyFinish lazy(finish, before_turn, q);
  auto even = [&](std::size_t slot) {
    const Ticks own = lazy.advance(slot);
    return std::all_of(sources.begin(), sources.end(),
                       [&](std::size_t offset) { return lazy.advance(wrap(slot + offset)) == own; });
  };
  std::vector<std::size_t> candidates(n);
  for (std::size_t slot = 0; slot < n; ++slot) candidates[slot] = slot;
  std::vector<std::size_t> next_candidates;
  std::vector<int> queued_for(n, -1);  // the step a slot is queued for, so it is queued once
  std::vector<int> computed_at(n, -1);  // the step a slot was found uneven or forced in
  std::vector<std::size_t> uneven;
  std::vector<Ticks> computed;
  for (int step = 0; step < steps; ++step) {
    uneven.clear();
    for (std::size_t slot : candidates)
      if (!even(slot)) {
        uneven.push_back(slot);
        computed_at[slot] = step;
      }
    if (uneven.empty() && !forcing) {  // every slot advances by its last advance from now on
      walk.steps_extrapolated = steps - step;
      break;
    }
    forced(step, [&](std::size_t slot) {
      if (computed_at[slot] == step) return;
      computed_at[slot] = step;
      uneven.push_back(slot);
    });
    computed.resize(uneven.size());
    for (std::size_t i = 0; i < uneven.size(); ++i) computed[i] = step_of(lazy, uneven[i], step);
    next_candidates.clear();
    auto queue = [&](std::size_t slot) {
      if (queued_for[slot] == step + 1) return;
      queued_for[slot] = step + 1;
      next_candidates.push_back(slot);
    };
    // A slot whose advance moved may have made the slots that read it uneven.
    for (std::size_t i = 0; i < uneven.size(); ++i) {
      const std::size_t slot = uneven[i];
      const Ticks advance_before = lazy.advance(slot);
      queue(slot);
      if (lazy.set(slot, step + 1, computed[i]) != advance_before)
        for (std::size_t offset : sources) queue(wrap(slot + n - offset));
    }
    candidates.swap(next_candidates);
  }
  for (std::size_t slot = 0; slot < n; ++slot) finish[slot] = lazy.at(slot, steps);
  return walk;
}

}  // namespace

RotatedRunWalk walk_rotated_run(const RotatedRunLoads& loads, std::span<const RotatedRunOp> ops, std::size_t q,
                                int steps, std::vector<Ticks>& finish, std::span<const Ticks> before_turn) {
  const std::size_t n = finish.size();
  auto wrap = [n](std::size_t index) { return index < n ? index : index - n; };
  // The step's new finish of one slot, as the step-by-step walk computes it.
  auto step_of = [&](const LazyFinish& lazy, std::size_t slot, int step) {
    auto turned = [&](std::size_t at) { return lazy.at(wrap(at + n - q), step); };  // A(at) = x[at - q]
    const Ticks own = turned(slot);
    StepClock clock(own);
    for (const RotatedRunOp& op : ops) {
      const std::size_t peer = wrap(slot + op.offset);
      if (op.sending)
        clock.transfer(own, turned(peer), op.latency, loads.outgoing[slot], loads.incoming[peer]);
      else
        clock.transfer(turned(peer), own, op.latency, loads.outgoing[peer], loads.incoming[slot]);
    }
    return clock.advance(loads.reduction[slot]);
  };
  const std::vector<std::size_t> sources = n > 0 ? source_offsets(ops, q, n) : std::vector<std::size_t>{};
  return lazy_walk(sources, q, steps, finish, before_turn, step_of, [](int, auto&&) {}, false);
}

RotatedRunWalk walk_phased_run(const PhasedRun& run, std::span<const PhasedRunOp> ops, std::size_t q, int steps,
                               std::vector<Ticks>& finish, std::span<const Ticks> before_turn) {
  const std::size_t n = finish.size();
  const std::size_t period = run.period;
  auto wrap = [n](std::size_t index) { return index < n ? index : index - n; };
  // The phase of a slot in lazy step `step`: slot i is rank i - frame, the frame turned by q a step.
  auto phase_of = [&](std::size_t slot, int step) {
    const std::size_t frame = (run.frame + (static_cast<std::size_t>(step) + 1) % period * q) % period;
    return (slot % period + period - frame) % period;
  };
  // A slot's port loads in a step, summed op by op as the step-by-step walk sums them.
  auto ports = [&](std::size_t slot, std::size_t phase, bool sending) {
    double seconds = 0;
    for (const PhasedRunOp& op : ops)
      if (op.sending == sending) seconds += op.bytes[slot] * op.seconds_per_byte[phase];
    return run.grid.ticks(seconds);
  };
  std::vector<RotatedRunOp> offsets;  // for source_offsets
  for (const PhasedRunOp& op : ops) offsets.push_back({op.offset, op.sending, 0});
  auto step_of = [&](const LazyFinish& lazy, std::size_t slot, int step) {
    auto turned = [&](std::size_t at) { return lazy.at(wrap(at + n - q), step); };  // A(at) = x[at - q]
    const std::size_t phase = phase_of(slot, step);
    const Ticks own = turned(slot);
    const Ticks outgoing = ports(slot, phase, true), incoming = ports(slot, phase, false);
    StepClock clock(own);
    for (const PhasedRunOp& op : ops) {
      const std::size_t peer = wrap(slot + op.offset);
      const std::size_t peer_phase = phase_of(peer, step);
      if (op.sending)
        clock.transfer(own, turned(peer), op.latency[phase], outgoing, ports(peer, peer_phase, false));
      else
        clock.transfer(turned(peer), own, op.latency[phase], ports(peer, peer_phase, true), incoming);
    }
    return clock.advance(run.reduction[slot]);
  };
  // Phases whose routes differ from the phase q after: a slot reading a rank of such a phase
  // (itself or a peer) read one q ranks on in the step before, and runs a different operator.
  std::vector<std::size_t> changed;
  for (std::size_t phase = 0; phase < period; ++phase) {
    const std::size_t before = (phase + q % period) % period;
    for (const PhasedRunOp& op : ops)
      if (op.latency[phase] != op.latency[before] || op.seconds_per_byte[phase] != op.seconds_per_byte[before]) {
        changed.push_back(phase);
        break;
      }
  }
  std::vector<std::size_t> readers{0};  // a slot reads ranks at these offsets from it
  for (const PhasedRunOp& op : ops) readers.push_back(op.offset % period);
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  auto forced = [&](int step, auto&& add) {
    const std::size_t slot0_phase = phase_of(0, step);
    for (std::size_t phase : changed)
      for (std::size_t offset : readers) {
        // slots i with (i + offset) at `phase`: i = phase - offset - slot0_phase (mod period), then every period
        const std::size_t first = (phase + 2 * period - offset - slot0_phase) % period;
        for (std::size_t slot = first; slot < n; slot += period) add(slot);
      }
  };
  const std::vector<std::size_t> sources = n > 0 ? source_offsets(offsets, q, n) : std::vector<std::size_t>{};
  return lazy_walk(sources, q, steps, finish, before_turn, step_of, forced, !changed.empty());
}

}  // namespace ringlab::simulator
