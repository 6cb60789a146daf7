#include "closed_form.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "job_footprint.hpp"
#include "rotated_run.hpp"
#include "schedule_walk.hpp"
#include "step_clock.hpp"

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

// The route cost of each op of a circulant template, step after step (a send's receiver and a
// receive's sender both sit at +peer), in one array; nothing when an offset the template uses
// costs differently from different ranks.
struct TemplateRoutes {
  std::vector<RouteCost> costs;
  std::vector<std::size_t> first;  // [step]: its first op's index in costs; one more entry at the end
  std::span<const RouteCost> of(std::size_t step) const {
    return {costs.data() + first[step], costs.data() + first[step + 1]};
  }
};
std::optional<TemplateRoutes> template_routes(const Schedule& schedule, RouteCosts& route_costs) {
  const std::vector<Step>& steps = schedule.programs.front().steps;
  TemplateRoutes routes;
  routes.first.reserve(steps.size() + 1);
  for (const Step& step : steps) {
    routes.first.push_back(routes.costs.size());
    for (const Op& op : step) {
      const std::optional<RouteCost> cost =
          route_costs.uniform_cost(op.kind == OpKind::send ? op.peer : schedule.nranks - op.peer);
      if (!cost) return std::nullopt;
      routes.costs.push_back(*cost);
    }
  }
  routes.first.push_back(routes.costs.size());
  return routes;
}

// An op's bytes at `count` elements of `type`: element_count(range, count, nchunks) from a table
// of chunk starts, without its divisions. Equal chunks (count a multiple of nchunks): the width
// alone, without the table, whose random look-ups miss the cache at large N.
class OpBytes {
 public:
  OpBytes(const Schedule& schedule, std::int64_t count, DataType type)
      : count_(count),
        nchunks_(schedule.nchunks),
        bytes_per_element_(static_cast<double>(element_size(type))),
        equal_chunk_elements_(count % schedule.nchunks == 0 ? count / schedule.nchunks : -1),
        starts_(equal_chunk_elements_ >= 0 ? 0 : static_cast<std::size_t>(schedule.nchunks) + 1) {
    for (std::size_t chunk = 0; chunk < starts_.size(); ++chunk)
      starts_[chunk] = chunk_start(static_cast<std::int64_t>(chunk), count, nchunks_);
  }
  bool equal_chunks() const { return equal_chunk_elements_ >= 0; }
  double operator()(ChunkRange chunks) const {
    if (equal_chunk_elements_ >= 0) return static_cast<double>(chunks.size() * equal_chunk_elements_) * bytes_per_element_;
    const std::int64_t elements = chunks.end <= nchunks_ ? start_of(chunks.end) - start_of(chunks.begin)
                                                         : count_ - start_of(chunks.begin) + start_of(chunks.end - nchunks_);
    return static_cast<double>(elements) * bytes_per_element_;
  }

 private:
  std::int64_t start_of(std::int64_t chunk) const { return starts_[static_cast<std::size_t>(chunk)]; }
  std::int64_t count_;
  std::int64_t nchunks_;
  double bytes_per_element_;
  std::int64_t equal_chunk_elements_;
  std::vector<std::int64_t> starts_;
};

// One op of `rank` (peer, kind) of `bytes` added to the rank's port loads and reduced bytes in
// a step: its sends share the outgoing port, its receives the incoming one. The one place the
// walks of an explicit schedule (windowed, packed, alike check) price an op, so that they stay
// equal to the last bit. Returns the op's route. Always inlined: it runs once per op, and GCC
// leaves it out of line once it has several callers (the alike check: 43 -> 47 ms at N = 65536).
template <typename Load, typename Routes>
[[gnu::always_inline]] inline RouteCost add_op_load(Load& load, int rank, int peer, OpKind kind, double bytes,
                                                    Routes& route_costs) {
  const bool sending = kind == OpKind::send;
  const RouteCost route = sending ? route_costs.between(rank, peer) : route_costs.between(peer, rank);
  (sending ? load.outgoing_seconds : load.incoming_seconds) += bytes * route.seconds_per_byte;
  if (kind == OpKind::recv_reduce) load.reduced_bytes += bytes;
  return route;
}

// The routes of a network where every ordered pair of distinct ranks costs alike
// (RouteCosts::every_pair_alike), for add_op_load: the one cost, without a look-up per op.
struct EveryPairAlike {
  RouteCost cost;
  RouteCost between(int /*source*/, int /*destination*/) const { return cost; }
};

// Calls walk(routes) with the routes an explicit schedule's ops are priced by: EveryPairAlike
// when every pair costs alike (`pairs_alike`: such ops name other ranks only, op_in_range), else
// route_costs itself. Two instantiations of the walk, one per kind of routes.
template <typename Walk>
decltype(auto) with_op_routes(RouteCosts& route_costs, bool pairs_alike, Walk&& walk) {
  if (pairs_alike) {
    EveryPairAlike alike{route_costs.between(1, 0)};
    return walk(alike);
  }
  return walk(route_costs);
}

// Walks of an explicit schedule go in blocks of ranks, step by step within a block and rank by
// rank within a step: a block's programs stay in the cache across its steps, where a walk step by
// step over all N ranks would miss the cache on each separately allocated program once per step.
constexpr int ranks_per_block = 256;
constexpr int prefetch_distance = 32;  // items ahead

// The ops of the item `distance` after (rank, step) in that order (wrapping from a block's last
// rank into the next step), or nothing past the walk's end_step. Always inlined: out of line,
// it cost halving_doubling unprepared at N = 65535 55.4 -> 50.3 ms (then called twice per item).
[[gnu::always_inline]] inline const Step* step_ahead(const Schedule& schedule, int rank, std::size_t step,
                                                     int distance, int block, int block_end, std::size_t end_step) {
  int ahead_rank = rank + distance;
  if (ahead_rank >= block_end) {
    ahead_rank -= block_end - block;
    ++step;
  }
  if (step >= end_step || ahead_rank >= block_end) return nullptr;
  const std::vector<Step>& steps = program_of(schedule, ahead_rank).steps;
  return step < steps.size() ? steps.data() + step : nullptr;
}

// Prefetches for the walk of one block of ranks, item (rank, step) after item: the step header
// (where the ops are) of the item 2d ahead, and the ops of the item d ahead, whose header was
// fetched d items ago; both ends of the ops, which may straddle two cache lines. Without them the
// walk waits on a miss for each (halving_doubling at N = 65536: 116 -> 77 ms, docs/simulator.md).
// The headers fetched wait in a ring of d until they are d ahead, so each item looks one header
// up, not two. Always inlined: GCC counts a prefetch as no side effect, so it drops every call to
// a function that only prefetches.
class BlockPrefetcher {
 public:
  // Primes the ring with the items d to 2d - 1 of the block's walk, which starts at (block, step).
  [[gnu::always_inline]] BlockPrefetcher(const Schedule& schedule, int block, int block_end, std::size_t step,
                                         std::size_t end_step)
      : schedule_(schedule), block_(block), block_end_(block_end), end_step_(end_step) {
    for (int i = 0; i < prefetch_distance; ++i)
      ahead_[static_cast<std::size_t>(i)] = step_ahead(schedule, block, step, prefetch_distance + i, block, block_end, end_step);
  }
  // Call once per item, in the walk's order.
  [[gnu::always_inline]] void at(int rank, std::size_t step) {
    const Step*& slot = ahead_[next_];
    next_ = next_ + 1 == ahead_.size() ? 0 : next_ + 1;
    if (const Step* near = slot; near != nullptr && !near->empty()) {
      __builtin_prefetch(near->data());
      __builtin_prefetch(reinterpret_cast<const char*>(near->data() + near->size()) - 1);
    }
    slot = step_ahead(schedule_, rank, step, 2 * prefetch_distance, block_, block_end_, end_step_);
    if (slot != nullptr) __builtin_prefetch(slot);
  }

 private:
  const Schedule& schedule_;
  int block_;
  int block_end_;
  std::size_t end_step_;
  std::array<const Step*, prefetch_distance> ahead_{};  // [item mod d]: the header d items ahead
  std::size_t next_ = 0;
};

// What one step costs one rank in the walk of ClosedFormModel::predict, before its transfers are
// paired: the serialisation on its ports, what it reduces, and its longest route latency.
struct RankStepCost {
  double outgoing_seconds = 0;
  double incoming_seconds = 0;
  double reduced_bytes = 0;
  double longest_latency_seconds = 0;
  bool any_op = false;
  friend bool operator==(const RankStepCost&, const RankStepCost&) = default;
};

template <typename Routes>
RankStepCost rank_step_cost(const Schedule& schedule, int rank, int step, Routes& route_costs,
                            const OpBytes& bytes_of) {
  RankStepCost cost;
  for (const Op& op : step_ops(schedule, rank, step)) {
    if (!op_in_range(schedule, rank, op)) throw_op_out_of_range(schedule, rank, step, op);
    const RouteCost route = add_op_load(cost, rank, op.peer, op.kind, bytes_of(op.chunks), route_costs);
    cost.longest_latency_seconds = std::max(cost.longest_latency_seconds, route.latency_seconds);
    cost.any_op = true;
  }
  return cost;
}

// The prediction when every rank's steps cost exactly rank 0's (`rank0`), which then finish
// each step at the same time (the induction of predict_alike below).
Prediction price_alike(const std::vector<RankStepCost>& rank0, int nranks, double gamma_seconds_per_byte) {
  double finish = 0;
  for (const RankStepCost& cost : rank0) {
    StepClock clock(finish);
    if (cost.any_op)  // the longest route's transfer ends last
      clock.transfer(finish, finish, cost.longest_latency_seconds, cost.outgoing_seconds, cost.incoming_seconds);
    finish = clock.advance(gamma_seconds_per_byte * cost.reduced_bytes);
  }
  Prediction prediction;
  prediction.steps = static_cast<int>(rank0.size());
  prediction.seconds = finish;
  prediction.rank_finish_seconds.assign(static_cast<std::size_t>(nranks), finish);
  prediction.ranks_alike = true;
  return prediction;
}

// An explicit schedule whose every rank, in every step, has exactly rank 0's port loads, reduced
// bytes and longest route latency (halving_doubling and recursive_doubling at N a power of two on
// a network where every pair of ranks costs alike): every rank then finishes each step at the
// same time, so rank 0's steps give the prediction. The walk of predict, by induction on the
// step: all ranks start step k at F, every transfer of a rank ends at F + (latency + max(out,
// in)) with out and in the same on every rank, and rounding is monotone, so the rank's latest
// end is F + (longest latency + max(out, in)); then + gamma x reduced. So this is the walk to
// the last bit, checked in one read of the schedule with no records written (halving_doubling
// at N = 65536: docs/simulator.md). Nothing as soon as a rank differs, which for a schedule
// whose ranks do not run alike is mostly within its first ranks.
std::optional<Prediction> predict_alike(const Schedule& schedule, RouteCosts& route_costs, double gamma_seconds_per_byte,
                                        const OpBytes& bytes_of) {
  if (schedule.circulant) return std::nullopt;
  // A cheap first look, before rank 0's costs (a parameter server's rank 0 has N - 1 ops in a
  // step): the first and the last rank have as many ops in every step.
  const std::vector<Step>& first_steps = schedule.programs.front().steps;
  const std::vector<Step>& last_steps = schedule.programs.back().steps;
  if (first_steps.size() != last_steps.size()) return std::nullopt;
  for (std::size_t step = 0; step < first_steps.size(); ++step)
    if (first_steps[step].size() != last_steps[step].size()) return std::nullopt;
  const auto nsteps = static_cast<std::size_t>(schedule.num_steps());
  std::vector<RankStepCost> rank0(nsteps);
  for (std::size_t step = 0; step < nsteps; ++step)
    rank0[step] = rank_step_cost(schedule, 0, static_cast<int>(step), route_costs, bytes_of);
  const auto every_rank_alike = [&](auto& routes) {
    for (int block = 0; block < schedule.nranks; block += ranks_per_block) {
      const int block_end = std::min(schedule.nranks, block + ranks_per_block);
      BlockPrefetcher prefetcher(schedule, block, block_end, 0, nsteps);
      for (std::size_t step = 0; step < nsteps; ++step)
        for (int rank = block; rank < block_end; ++rank) {
          prefetcher.at(rank, step);
          if (rank_step_cost(schedule, rank, static_cast<int>(step), routes, bytes_of) != rank0[step]) return false;
        }
    }
    return true;
  };
  if (!with_op_routes(route_costs, route_costs.every_pair_alike(), every_rank_alike)) return std::nullopt;
  return price_alike(rank0, schedule.nranks, gamma_seconds_per_byte);
}

// For each step of a circulant template: q when the step is the step before it moved by q ranks
// (same op kinds, peers and widths, every chunk range shifted by q * nchunks / nranks), i.e. when
// rank r's costs in this step are rank r + q's in the step before; nothing otherwise.
std::vector<std::optional<std::int64_t>> rotations_between_steps(const Schedule& schedule) {
  const std::vector<Step>& steps = schedule.programs.front().steps;
  std::vector<std::optional<std::int64_t>> rotation(steps.size());
  const std::int64_t nchunks = schedule.nchunks;
  const std::int64_t chunk_shift = nchunks / schedule.nranks;
  if (!schedule.circulant || chunk_shift == 0 || nchunks % schedule.nranks != 0) return rotation;
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
    if (shift) rotation[step] = *shift / chunk_shift;
  }
  return rotation;
}

// The circulant walk's times are whole ticks of `unit` seconds: every load, latency and
// reduction is rounded to the grid once, and from then on sums and maxima are exact, so ranks
// that run alike finish alike to the tick (rotated_run.hpp). The unit is 2^-61 of a bound on
// the longest the schedule can take (every step's longest latency plus its largest chunks at its
// slowest routes), so no finish overflows and rounding moves one by at most a tick a step:
// about 1e-13 of the time after 2^17 steps.
// Times are never negative, so rounding is adding a half and truncating (no libm call: the
// walk converts every rank's loads at every step).
struct TickGrid {
  double unit = 1;
  double ticks_per_second = 1;
  Ticks ticks(double seconds) const { return static_cast<Ticks>(seconds * ticks_per_second + 0.5); }
  double seconds(Ticks value) const { return unit * static_cast<double>(value); }
};
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

std::size_t loads_period(int nranks, std::int64_t nchunks, std::int64_t count) {
  const std::int64_t chunk_period = nchunks / std::gcd(nchunks, count % nchunks);
  const std::int64_t rank_period = chunk_period / std::gcd(chunk_period, nchunks / nranks);
  return static_cast<std::size_t>(nranks % rank_period == 0 ? rank_period : nranks);
}

ClosedFormModel::ClosedFormModel(const Topology& topology, double gamma_seconds_per_byte)
    : route_costs_(topology), gamma_seconds_per_byte_(gamma_seconds_per_byte) {
  if (!(gamma_seconds_per_byte >= 0) || !std::isfinite(gamma_seconds_per_byte))
    throw std::invalid_argument(
        fmt::format("gamma must be a finite number of seconds per byte >= 0, not {}", gamma_seconds_per_byte));
}

std::optional<Prediction> ClosedFormModel::predict_symmetric(const Schedule& schedule, std::int64_t count,
                                                            DataType type) {
  if (!schedule.circulant || schedule.nranks != route_costs_.topology().num_endpoints() ||
      count % schedule.nchunks != 0)
    return std::nullopt;
  const double chunk_bytes = static_cast<double>(count / schedule.nchunks) * static_cast<double>(element_size(type));
  const std::vector<Step>& steps = schedule.programs.front().steps;
  const std::optional<TemplateRoutes> routes = template_routes(schedule, route_costs_);
  if (!routes) return std::nullopt;
  double finish = 0;
  for (std::size_t step = 0; step < steps.size(); ++step) {
    // Every rank's ports carry the same in this step, so max(out(sender), in(receiver)) is max(out, in).
    double outgoing_seconds = 0;
    double incoming_seconds = 0;
    double reduced_bytes = 0;
    for (std::size_t i = 0; i < steps[step].size(); ++i) {
      const Op& op = steps[step][i];
      const double bytes = static_cast<double>(op.chunks.size()) * chunk_bytes;
      (op.kind == OpKind::send ? outgoing_seconds : incoming_seconds) += bytes * routes->of(step)[i].seconds_per_byte;
      if (op.kind == OpKind::recv_reduce) reduced_bytes += bytes;
    }
    StepClock clock(finish);
    for (const RouteCost& route : routes->of(step))
      clock.transfer(finish, finish, route.latency_seconds, outgoing_seconds, incoming_seconds);
    finish = clock.advance(gamma_seconds_per_byte_ * reduced_bytes);
  }
  Prediction prediction;
  prediction.steps = static_cast<int>(steps.size());
  prediction.seconds = finish;
  prediction.rank_finish_seconds.assign(static_cast<std::size_t>(schedule.nranks), finish);
  prediction.ranks_alike = true;
  return prediction;
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
  const std::vector<std::optional<std::int64_t>> rotation = rotations_between_steps(schedule);
  std::vector<std::size_t> run_end(steps.size());  // first step after `step` that turns otherwise
  for (std::size_t step = steps.size(); step-- > 0;)
    run_end[step] = step + 1 < steps.size() && rotation[step + 1] && rotation[step + 1] == rotation[step]
                        ? run_end[step + 1]
                        : step + 1;
  // Runs of rotated steps compare advances, exactly on the tick grid; any other walk keeps seconds.
  bool rotated_runs = false;
  for (std::size_t step = 1; step < steps.size(); ++step)
    rotated_runs = rotated_runs || (rotation[step - 1] && rotation[step]);
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

double gamma_at_footprint(const Topology& topology, double gamma_seconds_per_byte, double footprint_bytes) {
  const FootprintCurve& curve = topology.footprint_curves().gamma_seconds_per_byte;
  if (curve.empty() || topology.gamma_seconds_per_byte() != gamma_seconds_per_byte) return gamma_seconds_per_byte;
  return curve.at(footprint_bytes);
}

ClosedFormModel& ClosedFormModel::at_footprint(double footprint_bytes) {
  if (footprint_model_ && cached_footprint_bytes_ == footprint_bytes) return *footprint_model_;
  const Topology& topology = route_costs_.topology();
  footprint_model_.reset();
  footprint_topology_ = std::make_unique<Topology>(topology.at_footprint(footprint_bytes));
  footprint_model_ = std::make_unique<ClosedFormModel>(
      *footprint_topology_, gamma_at_footprint(topology, gamma_seconds_per_byte_, footprint_bytes));
  cached_footprint_bytes_ = footprint_bytes;
  return *footprint_model_;
}

Prediction ClosedFormModel::predict_compact(const Schedule& schedule, const CompactSchedule& compact,
                                            std::int64_t count, DataType type) {
  const auto nranks = static_cast<std::size_t>(schedule.nranks);
  const OpBytes bytes_of(schedule, count, type);
  // Ranks alike in shape, equal chunks and every pair of ranks alike: every rank's costs are rank
  // 0's, op for op in the same order, so its steps give the walk below to the last bit
  // (predict_alike's induction), without reading the other ranks' ops.
  if (compact.ranks_alike_in_shape() && bytes_of.equal_chunks() && route_costs_.every_pair_alike()) {
    std::vector<RankStepCost> rank0(static_cast<std::size_t>(compact.num_steps()));
    for (int step = 0; step < compact.num_steps(); ++step) {
      RankStepCost& cost = rank0[static_cast<std::size_t>(step)];
      for (const CompactOp& op : compact.ops(step, 0)) {
        const ChunkRange chunks{op.first_chunk, op.first_chunk + op.chunk_count};
        const RouteCost route = add_op_load(cost, 0, op.peer, op.kind, bytes_of(chunks), route_costs_);
        cost.longest_latency_seconds = std::max(cost.longest_latency_seconds, route.latency_seconds);
        cost.any_op = true;
      }
    }
    return price_alike(rank0, schedule.nranks, gamma_seconds_per_byte_);
  }
  if (scratch_.loads.empty()) scratch_.loads.resize(1);
  std::vector<PortLoad>& load = scratch_.loads.front();
  load.resize(nranks);
  std::vector<double>& latencies = scratch_.latencies;
  std::vector<double> finish(nranks, 0.0);
  std::vector<double> next_finish(nranks, 0.0);
  for (int step = 0; step < compact.num_steps(); ++step) {
    // Each rank's port loads and reduced bytes, and each op's route latency, in rank order.
    latencies.clear();
    for (int rank = 0; rank < schedule.nranks; ++rank) {
      PortLoad& own = load[static_cast<std::size_t>(rank)];
      own = PortLoad{};
      for (const CompactOp& op : compact.ops(step, rank)) {
        const ChunkRange chunks{op.first_chunk, op.first_chunk + op.chunk_count};
        latencies.push_back(add_op_load(own, rank, op.peer, op.kind, bytes_of(chunks), route_costs_).latency_seconds);
      }
    }
    // When each transfer ends, hence each rank's step.
    std::size_t index = 0;
    for (int rank = 0; rank < schedule.nranks; ++rank) {
      const auto self = static_cast<std::size_t>(rank);
      StepClock clock(finish[self]);
      for (const CompactOp& op : compact.ops(step, rank)) {
        const auto peer = static_cast<std::size_t>(op.peer);
        const bool sending = op.kind == OpKind::send;
        const std::size_t sender = sending ? self : peer;
        const std::size_t receiver = sending ? peer : self;
        clock.transfer(finish[sender], finish[receiver], latencies[index++], load[sender].outgoing_seconds,
                       load[receiver].incoming_seconds);
      }
      next_finish[self] = clock.advance(gamma_seconds_per_byte_ * load[self].reduced_bytes);
    }
    finish.swap(next_finish);
  }
  Prediction prediction;
  prediction.steps = compact.num_steps();
  prediction.seconds = finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
  prediction.rank_finish_seconds = std::move(finish);
  return prediction;
}

Prediction ClosedFormModel::predict(const PreparedSchedule& prepared, std::int64_t count, DataType type,
                                    Placement placement) {
  const Schedule& schedule = prepared.schedule();
  if (!route_costs_.topology().footprint_curves().empty()) {
    check_schedule(schedule, route_costs_.topology(), count);
    return at_footprint(job_footprint_bytes(schedule, count, type, placement)).predict(prepared, count, type);
  }
  check_schedule(schedule, route_costs_.topology(), count, OpChecks::header_only);  // ops: when packed, or in pass 1
  if (std::optional<Prediction> symmetric = predict_symmetric(schedule, count, type)) return *std::move(symmetric);
  if (std::optional<Prediction> circulant = predict_circulant(schedule, count, type)) return *std::move(circulant);
  if (const CompactSchedule* compact = prepared.compact()) return predict_compact(schedule, *compact, count, type);
  const OpBytes bytes_of(schedule, count, type);
  if (std::optional<Prediction> alike = predict_alike(schedule, route_costs_, gamma_seconds_per_byte_, bytes_of))
    return *std::move(alike);
  const auto nranks = static_cast<std::size_t>(schedule.nranks);
  Prediction prediction;
  prediction.steps = schedule.num_steps();
  const auto nsteps = static_cast<std::size_t>(prediction.steps);
  // Steps are priced in windows whose pass-1 records fit a memory budget (about 60 bytes per rank
  // and step with two ops): one window for halving_doubling at N = 65536, many for a schedule of
  // 2(N - 1) steps, whose records for all steps at once would not fit in memory.
  constexpr std::size_t record_budget_bytes = std::size_t{128} << 20;
  constexpr std::size_t record_bytes_per_rank_step = sizeof(PortLoad) + sizeof(std::uint32_t) + 2 * sizeof(Transfer);
  const std::size_t window =
      std::clamp<std::size_t>(record_budget_bytes / (record_bytes_per_rank_step * nranks), 1, std::max<std::size_t>(nsteps, 1));
  std::vector<std::vector<PortLoad>>& loads = scratch_.loads;
  std::vector<std::vector<Transfer>>& transfers = scratch_.transfers;
  std::vector<std::vector<std::uint32_t>>& rank_start = scratch_.rank_start;
  loads.resize(window);
  transfers.resize(window);
  rank_start.resize(window);
  for (std::size_t slot = 0; slot < window; ++slot) {
    loads[slot].resize(nranks);  // each entry is reset as its rank is walked
    rank_start[slot].resize(nranks + 1);
  }
  // A circulant schedule's ops are offsets, which may name the rank itself: their routes are looked up.
  const bool every_pair_alike = !schedule.circulant && route_costs_.every_pair_alike();
  std::vector<double> finish(nranks, 0.0);
  std::vector<double> next_finish(nranks, 0.0);
  for (std::size_t first_step = 0; first_step < nsteps; first_step += window) {
    const std::size_t window_steps = std::min(window, nsteps - first_step);
    // Pass 1: per step of the window, what each rank's ports carry, what it reduces and its
    // transfers (in rank order), walked in blocks of ranks and within a block step by step
    // (ranks_per_block: 40 % of the time at N = 65536 walked otherwise).
    for (std::size_t slot = 0; slot < window_steps; ++slot) transfers[slot].clear();
    // routes: route_costs_, or on a network whose every pair costs alike that one cost (the same
    // values without a look-up per op, whose rows miss the cache at large N)
    auto pass1 = [&](auto& routes) {
      for (int block = 0; block < schedule.nranks; block += ranks_per_block) {
        const int block_end = std::min(schedule.nranks, block + ranks_per_block);
        BlockPrefetcher prefetcher(schedule, block, block_end, first_step, first_step + window_steps);
        for (std::size_t slot = 0; slot < window_steps; ++slot) {
          const int step = static_cast<int>(first_step + slot);
          std::vector<Transfer>& step_transfers = transfers[slot];
          for (int rank = block; rank < block_end; ++rank) {
            prefetcher.at(rank, first_step + slot);
            const auto self = static_cast<std::size_t>(rank);
            PortLoad& load = loads[slot][self];
            load = PortLoad{};
            rank_start[slot][self] = static_cast<std::uint32_t>(step_transfers.size());
            for (const Op& written : step_ops(schedule, rank, step)) {
              if (!schedule.circulant && !op_in_range(schedule, rank, written))
                throw_op_out_of_range(schedule, rank, step, written);
              const Op op = schedule.circulant ? schedule.resolve(written, rank) : written;
              const RouteCost route = add_op_load(load, rank, op.peer, op.kind, bytes_of(op.chunks), routes);
              step_transfers.push_back({op.peer, op.kind == OpKind::send, route.latency_seconds});
            }
          }
        }
      }
    };
    with_op_routes(route_costs_, every_pair_alike, pass1);  // halving_doubling at N = 65535: 48-50 -> 40 ms
    // Pass 2, step by step: when each transfer ends, hence each rank's step.
    for (std::size_t slot = 0; slot < window_steps; ++slot) {
      const std::vector<PortLoad>& load = loads[slot];
      const std::vector<Transfer>& step_transfers = transfers[slot];
      std::vector<std::uint32_t>& start = rank_start[slot];
      start[nranks] = static_cast<std::uint32_t>(step_transfers.size());
      for (std::size_t self = 0; self < nranks; ++self) {
        StepClock clock(finish[self]);
        for (std::size_t i = start[self]; i < start[self + 1]; ++i) {
          const Transfer& transfer = step_transfers[i];
          const auto peer = static_cast<std::size_t>(transfer.peer);
          const std::size_t sender = transfer.sending ? self : peer;
          const std::size_t receiver = transfer.sending ? peer : self;
          clock.transfer(finish[sender], finish[receiver], transfer.latency_seconds, load[sender].outgoing_seconds,
                         load[receiver].incoming_seconds);
        }
        next_finish[self] = clock.advance(gamma_seconds_per_byte_ * load[self].reduced_bytes);
      }
      finish.swap(next_finish);
    }
  }
  prediction.seconds = finish.empty() ? 0.0 : *std::max_element(finish.begin(), finish.end());
  prediction.rank_finish_seconds = std::move(finish);
  return prediction;
}

}  // namespace ringlab::simulator
