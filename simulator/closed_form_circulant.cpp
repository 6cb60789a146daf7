// Shortcut: a circulant schedule on a network where each offset it uses costs the same from every
// rank, whatever its chunks. It equals the walk because a rank's ops are the template's, offset
// by the rank: every rank is still walked on the step clock, but per step and template op over
// arrays indexed by rank (each op's bytes from a table of chunk starts, the route cost once per
// op), with no per-rank route look-up or record; the same maxima and sums as the rank-by-rank
// walk. Ranks loads_period apart carry the same loads and so run alike, so only that many are
// walked (1024 float32 on 65536 ranks: 64). Within a run of steps that are rotations of one
// another (ring's reduce-scatter, then its all-gather), after its first two steps only the ranks
// whose sources advanced unevenly are computed and, once none is, the rest of the run is added in
// one go (rotated_run.hpp, Prediction::steps_extrapolated); such a walk keeps whole ticks of a
// fixed grid, so that equal advances are exactly equal, and equals the walk up to that rounding
// (about 1e-13 of the time). Nothing when a used offset's cost varies between ranks.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"
#include "simulator/rotated_run.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {
namespace {

// One op of one circulant step for ranks [first, last), whose peer is self + shift, on the step
// clock: finish holds each rank's finish of the step before, next its clock's end so far.
template <bool sending, typename Value>
void relax(const Value* __restrict outgoing, const Value* __restrict incoming, const Value* __restrict finish,
           Value* __restrict next, std::size_t first, std::size_t last, std::ptrdiff_t shift, Value latency) {
  for (std::size_t self = first; self < last; ++self) {
    const auto peer = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(self) + shift);
    StepClock<Value> clock(next[self]);
    if constexpr (sending)
      clock.transfer(finish[self], finish[peer], latency, outgoing[self], incoming[peer]);
    else
      clock.transfer(finish[peer], finish[self], latency, outgoing[peer], incoming[self]);
    next[self] = clock.end();
  }
}

// The circulant walk's times are whole ticks of `unit` seconds: every load, latency and
// reduction is rounded to the grid once, and from then on sums and maxima are exact, so ranks
// that run alike finish alike to the tick (rotated_run.hpp). The unit is 2^-61 of a bound on
// the longest the schedule can take (every step's longest latency plus its largest chunks at its
// slowest routes), so no finish overflows and rounding moves one by at most a tick a step:
// about 1e-13 of the time after 2^17 steps.
TickGrid tick_grid(const Schedule& schedule, const TemplateRoutes& routes, std::int64_t count,
                   double bytes_per_element, double gamma_seconds_per_byte) {
  const std::int64_t largest_chunk = count / schedule.nchunks + (count % schedule.nchunks != 0 ? 1 : 0);
  const double chunk_bytes = static_cast<double>(largest_chunk) * bytes_per_element;
  const std::vector<Step>& steps = schedule.programs.front().steps;
  double longest = 0;
  for (std::size_t step = 0; step < steps.size(); ++step) {
    double latency = 0, ports = 0, reduced = 0;
    for (std::size_t i = 0; i < steps[step].size(); ++i) {
      const Op& op = steps[step][i];
      const double bytes = static_cast<double>(op.chunks.size()) * chunk_bytes;
      latency = std::max(latency, routes.of(step)[i].latency_seconds);
      ports += bytes * routes.of(step)[i].seconds_per_byte;
      if (op.kind == OpKind::recv_reduce) reduced += bytes;
    }
    longest += latency + ports + gamma_seconds_per_byte * reduced;
  }
  constexpr double grid_ticks = 2305843009213693952.0;  // 2^61
  const double unit = longest > 0 ? longest / grid_ticks : 1.0;
  return {unit, 1.0 / unit};
}

// A circulant walk with no run of rotated steps never compares advances: it keeps plain seconds,
// the same arithmetic as the rank-by-rank walk (doubles, whose maxima vectorise).
struct SecondsGrid {
  double ticks(double seconds) const { return seconds; }
  double seconds(double value) const { return value; }
};

}  // namespace

RotatedSteps rotated_steps(const Schedule& schedule) {
  const std::vector<Step>& steps = schedule.programs.front().steps;
  RotatedSteps found;
  found.rotation.resize(steps.size());
  found.run_end.resize(steps.size());
  const std::int64_t nchunks = schedule.nchunks;
  const std::int64_t chunk_shift = nchunks / schedule.nranks;
  if (schedule.circulant && chunk_shift != 0 && nchunks % schedule.nranks == 0)
    for (std::size_t step = 1; step < steps.size(); ++step) {
      const Step& before = steps[step - 1];
      const Step& now = steps[step];
      if (now.size() != before.size() || now.empty()) continue;
      std::optional<std::int64_t> shift;
      for (std::size_t i = 0; i < now.size(); ++i) {
        const Op& a = before[i];
        const Op& b = now[i];
        const std::int64_t moved = ((b.chunks.begin - a.chunks.begin) % nchunks + nchunks) % nchunks;
        if (a.kind != b.kind || a.peer != b.peer || a.chunks.size() != b.chunks.size() || moved % chunk_shift != 0 ||
            (shift && *shift != moved)) {
          shift.reset();
          break;
        }
        shift = moved;
      }
      if (shift) found.rotation[step] = *shift / chunk_shift;
    }
  for (std::size_t step = steps.size(); step-- > 0;)
    found.run_end[step] = step + 1 < steps.size() && found.rotation[step + 1] && found.rotation[step + 1] == found.rotation[step]
                              ? found.run_end[step + 1]
                              : step + 1;
  for (std::size_t step = 1; step < steps.size(); ++step)
    found.any = found.any || (found.rotation[step - 1] && found.rotation[step]);
  return found;
}

std::size_t loads_period(int nranks, std::int64_t nchunks, std::int64_t count) {
  const std::int64_t chunk_period = nchunks / std::gcd(nchunks, count % nchunks);
  const std::int64_t rank_period = chunk_period / std::gcd(chunk_period, nchunks / nranks);
  return static_cast<std::size_t>(nranks % rank_period == 0 ? rank_period : nranks);
}

std::optional<Prediction> ClosedFormModel::predict_circulant(const Schedule& schedule, std::int64_t count,
                                                            DataType type) {
  if (!schedule.circulant || schedule.nranks != route_costs_.topology().num_endpoints()) return std::nullopt;
  const std::vector<Step>& steps = schedule.programs.front().steps;
  const std::optional<TemplateRoutes> routes = template_routes(schedule, route_costs_);
  if (!routes) return std::nullopt;
  const std::int64_t nchunks = schedule.nchunks;
  const std::int64_t chunk_shift = nchunks / schedule.nranks;
  // Only the first `slots` ranks are walked: rank r + slots runs exactly as rank r (loads_period),
  // and every array below is indexed by rank modulo slots.
  const std::size_t slots = loads_period(schedule.nranks, nchunks, count);
  const auto bytes_per_element = static_cast<double>(element_size(type));
  std::vector<std::int64_t> starts(static_cast<std::size_t>(nchunks) + 1);
  for (std::size_t chunk = 0; chunk < starts.size(); ++chunk)
    starts[chunk] = chunk_start(static_cast<std::int64_t>(chunk), count, nchunks);
  // Within a run of steps each the one before it turned by q ranks (rotations_between_steps),
  // rank r's loads in a step are rank r + frame's in the run's first step, frame being the turns
  // so far: the walk keeps `finish` in that frame (finish[r] is rank r + frame's), reuses the first
  // step's loads, and does the same arithmetic on the same values as a walk in rank order.
  // In that frame every step of the run is the same max-plus operator: after the run's first two
  // steps, walk_rotated_run computes only the ranks whose sources advanced unevenly, and once none
  // is left adds the rest of the run in one go (extrapolated).
  const RotatedSteps runs = rotated_steps(schedule);
  const std::vector<std::optional<std::int64_t>>& rotation = runs.rotation;
  const std::vector<std::size_t>& run_end = runs.run_end;
  // Runs of rotated steps compare advances, exactly on the tick grid; any other walk keeps seconds.
  const bool rotated_runs = runs.any;
  auto walk = [&](const auto& grid) -> Prediction {
    using Value = decltype(grid.ticks(0.0));
    std::vector<double> outgoing_seconds(slots), incoming_seconds(slots), reduced_bytes(slots);
    std::vector<Value> outgoing(slots), incoming(slots), reduction(slots);
    std::vector<Value> finish(slots, Value{0}), next_finish(slots);
    std::size_t frame = 0;
    bool loads_of_run = false;  // the loads are those of the current run's first step
    int extrapolated = 0;
    int walked_in_run = 0;  // steps of the run walked after its first
    // finish[r] becomes rank r + frame's finish, then frame is 0.
    auto to_rank_order = [&] {
      for (std::size_t self = 0; self < slots; ++self)
        next_finish[self] = finish[self + frame < slots ? self + frame : self + frame - slots];
      finish.swap(next_finish);
      frame = 0;
    };
    for (std::size_t step = 0; step < steps.size(); ++step) {
      if (loads_of_run && rotation[step]) {
        const auto q = static_cast<std::size_t>(*rotation[step]) % slots;
        if (walked_in_run > 0) {
          if constexpr (std::is_same_v<Value, Ticks>) {
            // The run's first two steps are walked: its rest, slot by uneven slot (rotated_run.hpp).
            std::vector<RotatedRunOp> ops;
            for (std::size_t i = 0; i < steps[step].size(); ++i) {
              const Op& op = steps[step][i];
              ops.push_back({static_cast<std::size_t>(op.peer) % slots, op.kind == OpKind::send,
                             grid.ticks(routes->of(step)[i].latency_seconds)});
            }
            const int rest = static_cast<int>(run_end[step] - step);
            const RotatedRunWalk run =
                walk_rotated_run({outgoing, incoming, reduction}, ops, q, rest, finish, next_finish);
            extrapolated += run.steps_extrapolated;
            frame = static_cast<std::size_t>((frame + (static_cast<std::size_t>(rest) % slots) * q) % slots);
            loads_of_run = false;
            step = run_end[step] - 1;
            continue;
          } else {
            throw std::logic_error("closed form: a run of rotated steps walked in seconds");  // rotated_runs
          }
        }
        // Turn the frame by q: finish[r] becomes finish[r - q].
        ++walked_in_run;
        std::copy(finish.end() - static_cast<std::ptrdiff_t>(q), finish.end(), next_finish.begin());
        std::copy(finish.begin(), finish.end() - static_cast<std::ptrdiff_t>(q), next_finish.begin() + static_cast<std::ptrdiff_t>(q));
        finish.swap(next_finish);
        frame = frame + q < slots ? frame + q : frame + q - slots;
      } else {
        if (frame != 0) to_rank_order();
        loads_of_run = true;
        walked_in_run = 0;
        std::fill(outgoing_seconds.begin(), outgoing_seconds.end(), 0.0);
        std::fill(incoming_seconds.begin(), incoming_seconds.end(), 0.0);
        std::fill(reduced_bytes.begin(), reduced_bytes.end(), 0.0);
        // Port loads, op by op in the template's order (each rank's sums in its op order).
        for (std::size_t i = 0; i < steps[step].size(); ++i) {
          const Op& op = steps[step][i];
          const double seconds_per_byte = routes->of(step)[i].seconds_per_byte;
          const std::int64_t width = op.chunks.size();
          std::vector<double>& port = op.kind == OpKind::send ? outgoing_seconds : incoming_seconds;
          std::int64_t begin = op.chunks.begin % nchunks;
          for (std::size_t rank = 0; rank < slots; ++rank, begin = begin + chunk_shift < nchunks ? begin + chunk_shift
                                                                                              : begin + chunk_shift - nchunks) {
            const std::int64_t end = begin + width;
            const std::int64_t elements =
                end <= nchunks ? starts[static_cast<std::size_t>(end)] - starts[static_cast<std::size_t>(begin)]
                               : count - starts[static_cast<std::size_t>(begin)] + starts[static_cast<std::size_t>(end - nchunks)];
            const double bytes = static_cast<double>(elements) * bytes_per_element;
            port[rank] += bytes * seconds_per_byte;
            if (op.kind == OpKind::recv_reduce) reduced_bytes[rank] += bytes;
          }
        }
        for (std::size_t rank = 0; rank < slots; ++rank) {
          outgoing[rank] = grid.ticks(outgoing_seconds[rank]);
          incoming[rank] = grid.ticks(incoming_seconds[rank]);
          reduction[rank] = grid.ticks(gamma_seconds_per_byte_ * reduced_bytes[rank]);
        }
      }
      // When each transfer ends, hence each rank's step: a send's receiver and a receive's sender
      // both sit at rank + peer.
      std::copy(finish.begin(), finish.end(), next_finish.begin());
      for (std::size_t i = 0; i < steps[step].size(); ++i) {
        const Op& op = steps[step][i];
        const Value latency = grid.ticks(routes->of(step)[i].latency_seconds);
        const auto offset = static_cast<std::size_t>(op.peer) % slots;
        const auto wrap = slots - offset;  // the first rank whose peer wraps around
        const auto forward = static_cast<std::ptrdiff_t>(offset);
        const auto backward = forward - static_cast<std::ptrdiff_t>(slots);
        // Two runs without a wrap test, so that the compiler can vectorise them.
        if (op.kind == OpKind::send) {
          relax<true, Value>(outgoing.data(), incoming.data(), finish.data(), next_finish.data(), 0, wrap, forward, latency);
          relax<true, Value>(outgoing.data(), incoming.data(), finish.data(), next_finish.data(), wrap, slots, backward, latency);
        } else {
          relax<false, Value>(outgoing.data(), incoming.data(), finish.data(), next_finish.data(), 0, wrap, forward, latency);
          relax<false, Value>(outgoing.data(), incoming.data(), finish.data(), next_finish.data(), wrap, slots, backward, latency);
        }
      }
      for (std::size_t self = 0; self < slots; ++self) next_finish[self] = StepClock(next_finish[self]).advance(reduction[self]);
      finish.swap(next_finish);  // finish: after this step; next_finish: before it
    }
    if (frame != 0) to_rank_order();
    Prediction prediction;
    prediction.steps = static_cast<int>(steps.size());
    prediction.seconds = finish.empty() ? 0.0 : grid.seconds(*std::max_element(finish.begin(), finish.end()));
    prediction.rank_finish_seconds.resize(static_cast<std::size_t>(schedule.nranks));
    for (std::size_t rank = 0; rank < prediction.rank_finish_seconds.size(); ++rank)
      prediction.rank_finish_seconds[rank] = grid.seconds(finish[rank % slots]);
    prediction.steps_extrapolated = extrapolated;
    return prediction;
  };
  if (rotated_runs) return walk(tick_grid(schedule, *routes, count, bytes_per_element, gamma_seconds_per_byte_));
  return walk(SecondsGrid{});
}

}  // namespace ringlab::simulator
