#include "rotated_run.hpp"

#include <algorithm>
#include <cmath>

namespace ringlab::simulator {
namespace {

// Each slot's finish held lazily: its value at step `stamp` plus one advance per step since.
// Values are held less a baseline, first + reference * step (the smallest finish and the smallest
// advance at the start): what is left is small, so its rounding is, and an advance extrapolated
// over hundreds of steps does not carry the rounding of a whole finish time with it.
class LazyFinish {
 public:
  LazyFinish(std::span<const double> finish, std::span<const double> before_turn, std::size_t q)
      : base_(finish.size()), advance_(finish.size()), stamp_(finish.size(), 0) {
    const std::size_t n = finish.size();
    first_ = *std::min_element(finish.begin(), finish.end());
    for (std::size_t slot = 0; slot < n; ++slot) {
      const std::size_t before = slot + q < n ? slot + q : slot + q - n;  // before_turn[slot + q] is slot's
      advance_[slot] = finish[slot] - before_turn[before];
    }
    reference_ = *std::min_element(advance_.begin(), advance_.end());
    for (std::size_t slot = 0; slot < n; ++slot) {
      base_[slot] = finish[slot] - first_;
      advance_[slot] -= reference_;
    }
  }
  // Above the baseline.
  double at(std::size_t slot, int step) const {
    return base_[slot] + static_cast<double>(step - stamp_[slot]) * advance_[slot];
  }
  // Advances are above the reference: equal advances stay equal.
  double advance(std::size_t slot) const { return advance_[slot]; }
  double reference_advance() const { return reference_; }
  // Slot's value above the baseline after `step`, from its finish less the step before's
  // baseline; returns its advance in that step.
  double set(std::size_t slot, int step, double above_previous_baseline) {
    const double value = above_previous_baseline - reference_;
    const double advance = value - at(slot, step - 1);
    base_[slot] = value;
    stamp_[slot] = step;
    advance_[slot] = advance;
    return advance;
  }
  double finish(std::size_t slot, int step) const {
    return (first_ + reference_ * static_cast<double>(step)) + at(slot, step);
  }

 private:
  double first_ = 0;
  double reference_ = 0;
  std::vector<double> base_;
  std::vector<double> advance_;
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
                                double gamma_seconds_per_byte, int steps, std::vector<double>& finish,
                                std::span<const double> before_turn, double relative_tolerance) {
  const std::size_t n = finish.size();
  RotatedRunWalk walk;
  if (n == 0 || steps <= 0) return walk;
  auto wrap = [n](std::size_t index) { return index < n ? index : index - n; };
  LazyFinish lazy(finish, before_turn, q);
  const std::vector<std::size_t> sources = source_offsets(ops, q, n);
  // Finish times grow by at most the largest advance seen per step: the scale of the tolerance.
  double largest_finish = 0;
  double largest_advance = 0;
  for (std::size_t slot = 0; slot < n; ++slot) {
    largest_finish = std::max(largest_finish, std::abs(finish[slot]));
    largest_advance = std::max(largest_advance, std::abs(lazy.advance(slot) + lazy.reference_advance()));
  }
  // The step's new finish of one slot, as the step-by-step walk computes it, less the baseline
  // of the step before.
  auto step_of = [&](std::size_t slot, int step) {
    auto turned = [&](std::size_t at) { return lazy.at(wrap(at + n - q), step); };  // A(at) = x[at - q]
    const double own = turned(slot);
    double end = own;
    for (const RotatedRunOp& op : ops) {
      const std::size_t peer = wrap(slot + op.offset);
      const double duration =
          op.latency_seconds + (op.sending ? std::max(loads.outgoing_seconds[slot], loads.incoming_seconds[peer])
                                           : std::max(loads.outgoing_seconds[peer], loads.incoming_seconds[slot]));
      end = std::max(end, std::max(own, turned(peer)) + duration);
    }
    return end + gamma_seconds_per_byte * loads.reduced_bytes[slot];
  };
  std::vector<std::size_t> candidates(n);
  for (std::size_t slot = 0; slot < n; ++slot) candidates[slot] = slot;
  std::vector<std::size_t> next_candidates;
  std::vector<int> queued_for(n, -1);  // the step a slot is queued for, so it is queued once
  // Each slot's advance as the slots that read it last saw it: they are queued again when it
  // moves by more than the tolerance from that, not from the step before, so that many small
  // moves cannot add up unseen.
  std::vector<double> announced(n);
  for (std::size_t slot = 0; slot < n; ++slot) announced[slot] = lazy.advance(slot);
  std::vector<std::size_t> uneven;
  std::vector<double> computed;
  for (int step = 0; step < steps; ++step) {
    const double tolerance_seconds = relative_tolerance * (largest_finish + static_cast<double>(step) * largest_advance);
    auto even = [&](std::size_t slot) {
      const double own = lazy.advance(slot);
      return std::all_of(sources.begin(), sources.end(), [&](std::size_t offset) {
        return std::abs(lazy.advance(wrap(slot + offset)) - own) <= tolerance_seconds;
      });
    };
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
    for (std::size_t i = 0; i < uneven.size(); ++i) {
      const std::size_t slot = uneven[i];
      const double advance = lazy.set(slot, step + 1, computed[i]);
      largest_advance = std::max(largest_advance, std::abs(advance + lazy.reference_advance()));
      queue(slot);
      if (std::abs(advance - announced[slot]) > tolerance_seconds / 2) {
        announced[slot] = advance;
        for (std::size_t offset : sources) queue(wrap(slot + n - offset));
      }
    }
    candidates.swap(next_candidates);
  }
  for (std::size_t slot = 0; slot < n; ++slot) finish[slot] = lazy.finish(slot, steps);
  return walk;
}

}  // namespace ringlab::simulator
