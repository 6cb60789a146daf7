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

}  // namespace

RotatedRunWalk walk_rotated_run(const RotatedRunLoads& loads, std::span<const RotatedRunOp> ops, std::size_t q,
                                int steps, std::vector<Ticks>& finish, std::span<const Ticks> before_turn) {
  const std::size_t n = finish.size();
  RotatedRunWalk walk;
  if (n == 0 || steps <= 0) return walk;
  auto wrap = [n](std::size_t index) { return index < n ? index : index - n; };
  LazyFinish lazy(finish, before_turn, q);
  const std::vector<std::size_t> sources = source_offsets(ops, q, n);
  // The step's new finish of one slot, as the step-by-step walk computes it.
  auto step_of = [&](std::size_t slot, int step) {
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
  auto even = [&](std::size_t slot) {
    const Ticks own = lazy.advance(slot);
    return std::all_of(sources.begin(), sources.end(),
                       [&](std::size_t offset) { return lazy.advance(wrap(slot + offset)) == own; });
  };
  std::vector<std::size_t> candidates(n);
  for (std::size_t slot = 0; slot < n; ++slot) candidates[slot] = slot;
  std::vector<std::size_t> next_candidates;
  std::vector<int> queued_for(n, -1);  // the step a slot is queued for, so it is queued once
  std::vector<std::size_t> uneven;
  std::vector<Ticks> computed;
  for (int step = 0; step < steps; ++step) {
    uneven.clear();
    for (std::size_t slot : candidates)
      if (!even(slot)) uneven.push_back(slot);
    if (uneven.empty()) {  // every slot advances by its last advance from now on
      walk.steps_extrapolated = steps - step;
      break;
    }
    computed.resize(uneven.size());
    for (std::size_t i = 0; i < uneven.size(); ++i) computed[i] = step_of(uneven[i], step);
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

}  // namespace ringlab::simulator
