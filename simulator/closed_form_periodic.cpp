// Shortcut: a circulant schedule on a network whose declared rank symmetry holds
// (RouteCosts::symmetric: torus2d, ring, dragonfly, nvswitch with whole units) but where an offset
// it uses costs differently from different ranks (torus2d: a partner one rank on costs one hop
// within a row, two from a row's last column). Rank r reaches r + offset at the cost rank r + P
// does (P = RouteCosts::offset_period, the torus's row length, a dragonfly's group): each op's
// route costs are kept per phase (rank mod P), and ranks lcm(P, loads period) apart run alike, so
// only that many are walked, step by step on the step clock, with the same sums in the same order
// as the walk (closed_form_walk.cpp).
// Unequal chunks make the loads period N: then, within a run of steps that are rotations of one
// another (ring's reduce-scatter, then its all-gather), the walk keeps the frame that turns with
// the run, as closed_form_circulant.cpp does, and after the run's first two steps computes only
// the ranks whose sources advanced unevenly or whose routes changed phase (rotated_run.hpp,
// walk_phased_run): on whole ticks of a fixed grid, equal to the walk up to that rounding (about
// 1e-13 of the time). Without such runs: plain seconds, the walk's arithmetic to the last bit.
// Nothing when the schedule is not circulant or the symmetry does not hold (then: the walk).
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"
#include "simulator/rotated_run.hpp"
#include "collectives/step_clock.hpp"

namespace ringlab::simulator {
namespace {

struct PlainSecondsGrid {  // a walk with no rotated run keeps plain seconds
  double ticks(double seconds) const { return seconds; }
  double seconds(double value) const { return value; }
};

// Each template op's route costs per phase: a send's to rank + peer, a receive's from it.
struct PhaseCosts {
  std::vector<double> latency_seconds;   // [phase]
  std::vector<double> seconds_per_byte;  // [phase]
};

}  // namespace

std::optional<Prediction> ClosedFormModel::predict_periodic(const Schedule& schedule, std::int64_t count,
                                                           DataType type) {
  const int nranks = schedule.nranks;
  if (!schedule.circulant || nranks != route_costs_.topology().num_endpoints() || !route_costs_.symmetric())
    return std::nullopt;
  const std::int64_t nchunks = schedule.nchunks;
  const std::int64_t chunk_shift = nchunks / nranks;
  const auto phases = static_cast<std::size_t>(route_costs_.offset_period());
  const std::size_t slots = std::lcm(loads_period(nranks, nchunks, count), phases);  // divides N
  if (static_cast<std::size_t>(nranks) % slots != 0) return std::nullopt;
  const auto bytes_per_element = static_cast<double>(element_size(type));
  std::vector<std::int64_t> starts(static_cast<std::size_t>(nchunks) + 1);
  for (std::size_t chunk = 0; chunk < starts.size(); ++chunk)
    starts[chunk] = chunk_start(static_cast<std::int64_t>(chunk), count, nchunks);
  std::map<std::pair<bool, int>, PhaseCosts> costs_of;
  const auto costs = [&](const Op& op) -> const PhaseCosts& {
    const bool sending = op.kind == OpKind::send;
    PhaseCosts& found = costs_of[{sending, op.peer}];
    if (found.latency_seconds.empty())
      for (std::size_t rank = 0; rank < phases; ++rank) {
        const int self = static_cast<int>(rank);
        const int peer = static_cast<int>((rank + static_cast<std::size_t>(op.peer)) % static_cast<std::size_t>(nranks));
        const RouteCost cost = sending ? route_costs_.between(self, peer) : route_costs_.between(peer, self);
        found.latency_seconds.push_back(cost.latency_seconds);
        found.seconds_per_byte.push_back(cost.seconds_per_byte);
      }
    return found;
  };
  const std::vector<Step>& steps = schedule.programs.front().steps;
  std::vector<std::vector<const PhaseCosts*>> step_costs(steps.size());
  for (std::size_t step = 0; step < steps.size(); ++step)
    for (const Op& op : steps[step]) step_costs[step].push_back(&costs(op));
  const RotatedSteps runs = rotated_steps(schedule);

  auto walk = [&](const auto& grid) -> Prediction {
    using Value = decltype(grid.ticks(0.0));
    std::vector<std::vector<double>> bytes;  // [op][slot]: the bytes of the run's first step (frame 0)
    std::vector<Value> outgoing(slots), incoming(slots), reduction(slots);
    std::vector<Value> finish(slots, Value{0}), next_finish(slots, Value{0});
    std::vector<double> sending(slots), receiving(slots), reduced(slots);
    std::vector<Value> op_latencies;  // one op's, by phase
    std::size_t frame = 0;  // finish[i] is rank i - frame's (the frame turns with a run)
    bool loads_of_run = false;
    int walked_in_run = 0;
    for (std::size_t step = 0; step < steps.size(); ++step) {
      const Step& ops = steps[step];
      if (std::is_same_v<Value, Ticks> && loads_of_run && runs.rotation[step]) {  // runs: on ticks only
        const auto q = static_cast<std::size_t>(*runs.rotation[step]) % slots;
        if (walked_in_run > 0) {
          if constexpr (std::is_same_v<Value, Ticks>) {
            std::vector<std::vector<Ticks>> latencies(ops.size());
            std::vector<PhasedRunOp> phased;
            for (std::size_t i = 0; i < ops.size(); ++i) {
              for (double latency : step_costs[step][i]->latency_seconds) latencies[i].push_back(grid.ticks(latency));
              phased.push_back({static_cast<std::size_t>(ops[i].peer) % slots, ops[i].kind == OpKind::send, latencies[i],
                                step_costs[step][i]->seconds_per_byte, bytes[i]});
            }
            const int rest = static_cast<int>(runs.run_end[step] - step);
            walk_phased_run({phases, frame, grid, reduction}, phased, q, rest, finish, next_finish);
            frame = (frame + (static_cast<std::size_t>(rest) % slots) * q) % slots;
            loads_of_run = false;
            step = runs.run_end[step] - 1;
            continue;
          } else {
            throw std::logic_error("closed form: a run of rotated steps walked in seconds");
          }
        }
        ++walked_in_run;  // turn the frame by q: finish[r] becomes finish[r - q]
        std::rotate_copy(finish.begin(), finish.end() - static_cast<std::ptrdiff_t>(q), finish.end(), next_finish.begin());
        finish.swap(next_finish);
        frame = (frame + q) % slots;
      } else {
        if (frame != 0) {  // to rank order
          std::rotate_copy(finish.begin(), finish.begin() + static_cast<std::ptrdiff_t>(frame), finish.end(), next_finish.begin());
          finish.swap(next_finish);
          frame = 0;
        }
        loads_of_run = true;
        walked_in_run = 0;
        bytes.resize(ops.size());
        for (std::vector<double>& op_bytes : bytes) op_bytes.resize(slots);
        std::fill(reduced.begin(), reduced.end(), 0.0);
        for (std::size_t i = 0; i < ops.size(); ++i) {
          std::int64_t begin = ops[i].chunks.begin % nchunks;
          for (std::size_t rank = 0; rank < slots; ++rank) {
            const std::int64_t end = begin + ops[i].chunks.size();
            const std::int64_t elements =
                end <= nchunks ? starts[static_cast<std::size_t>(end)] - starts[static_cast<std::size_t>(begin)]
                               : count - starts[static_cast<std::size_t>(begin)] + starts[static_cast<std::size_t>(end - nchunks)];
            bytes[i][rank] = static_cast<double>(elements) * bytes_per_element;
            if (ops[i].kind == OpKind::recv_reduce) reduced[rank] += bytes[i][rank];
            begin = begin + chunk_shift < nchunks ? begin + chunk_shift : begin + chunk_shift - nchunks;
          }
        }
        for (std::size_t rank = 0; rank < slots; ++rank) reduction[rank] = grid.ticks(gamma_seconds_per_byte_ * reduced[rank]);
      }
      // Each slot's port loads at its rank's phase (slot i is rank i - frame), op by op in the
      // template's order; then each transfer's end, op by op (maxima in any order are the same).
      const std::size_t first_phase = (phases - frame % phases) % phases;  // slot 0's
      std::fill(sending.begin(), sending.end(), 0.0);
      std::fill(receiving.begin(), receiving.end(), 0.0);
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const double* seconds_per_byte = step_costs[step][i]->seconds_per_byte.data();
        std::vector<double>& port = ops[i].kind == OpKind::send ? sending : receiving;
        for (std::size_t self = 0, phase = first_phase; self < slots; ++self, phase = phase + 1 == phases ? 0 : phase + 1)
          port[self] += bytes[i][self] * seconds_per_byte[phase];
      }
      for (std::size_t self = 0; self < slots; ++self) {
        outgoing[self] = grid.ticks(sending[self]);
        incoming[self] = grid.ticks(receiving[self]);
      }
      std::copy(finish.begin(), finish.end(), next_finish.begin());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        op_latencies.clear();
        for (double latency : step_costs[step][i]->latency_seconds) op_latencies.push_back(grid.ticks(latency));
        const std::size_t offset = static_cast<std::size_t>(ops[i].peer) % slots;
        const bool send = ops[i].kind == OpKind::send;
        for (std::size_t self = 0, phase = first_phase, peer = offset; self < slots;
             ++self, phase = phase + 1 == phases ? 0 : phase + 1, peer = peer + 1 == slots ? 0 : peer + 1) {
          StepClock clock(next_finish[self]);
          if (send)
            clock.transfer(finish[self], finish[peer], op_latencies[phase], outgoing[self], incoming[peer]);
          else
            clock.transfer(finish[peer], finish[self], op_latencies[phase], outgoing[peer], incoming[self]);
          next_finish[self] = clock.end();
        }
      }
      for (std::size_t self = 0; self < slots; ++self) next_finish[self] = StepClock(next_finish[self]).advance(reduction[self]);
      finish.swap(next_finish);  // finish: after this step; next_finish: before it
    }
    Prediction prediction;
    prediction.steps = static_cast<int>(steps.size());
    prediction.seconds = finish.empty() ? 0.0 : grid.seconds(*std::max_element(finish.begin(), finish.end()));
    prediction.rank_finish_seconds.resize(static_cast<std::size_t>(nranks));
    for (std::size_t rank = 0; rank < prediction.rank_finish_seconds.size(); ++rank)
      prediction.rank_finish_seconds[rank] = grid.seconds(finish[(rank + frame) % slots]);
    return prediction;
  };
  // The lazy walk pays off where few slots are forced a step: phases whose routes differ from the
  // next phase's, each forcing slots / P slots for itself and each peer (a torus: a row's last
  // columns, 3 of P). Where they are a quarter of the slots or more (a dragonfly: every router's
  // edge) or there is no rotated run, every slot is walked, in seconds.
  std::size_t edges = 0;
  for (std::size_t phase = 0; phase < phases; ++phase)
    for (const auto& [op, cost] : costs_of)
      if (cost.latency_seconds[phase] != cost.latency_seconds[(phase + 1) % phases] ||
          cost.seconds_per_byte[phase] != cost.seconds_per_byte[(phase + 1) % phases]) {
        ++edges;
        break;
      }
  if (!runs.any || 4 * 3 * edges >= phases) return walk(PlainSecondsGrid{});
  // The grid: 2^-61 of a bound on the longest the schedule can take (each step's slowest route's
  // latency plus its largest chunks at its slowest routes), as closed_form_circulant.cpp's.
  const double chunk_bytes = static_cast<double>(count / nchunks + (count % nchunks != 0 ? 1 : 0)) * bytes_per_element;
  double longest = 0;
  for (std::size_t step = 0; step < steps.size(); ++step)
    for (std::size_t i = 0; i < steps[step].size(); ++i) {
      const PhaseCosts& cost = *step_costs[step][i];
      const double bytes = static_cast<double>(steps[step][i].chunks.size()) * chunk_bytes;
      longest += *std::max_element(cost.latency_seconds.begin(), cost.latency_seconds.end()) +
                 bytes * *std::max_element(cost.seconds_per_byte.begin(), cost.seconds_per_byte.end()) +
                 (steps[step][i].kind == OpKind::recv_reduce ? gamma_seconds_per_byte_ * bytes : 0.0);
    }
  const double unit = longest > 0 ? longest / 2305843009213693952.0 : 1.0;  // 2^61
  return walk(TickGrid{unit, 1.0 / unit});
}

}  // namespace ringlab::simulator
