// The closed-form simulator on switch:N: one prediction of one message size (the schedule and
// the topology are built outside the timed loop; route costs are cached after the first call,
// as in a size sweep).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

const char* const simulated_algorithms[] = {"ring", "interval_paired", "parameter_server", "halving_doubling",
                                            "recursive_doubling"};

// One closed-form prediction of a float32 all-reduce on switch:N, of 64 MiB unless a fourth
// argument gives the bytes. Third argument 1: the schedule prepared once outside the loop
// (explicit programs packed), as a sweep over sizes prices it; BM_prepare is that one-off cost.
void BM_closed_form(benchmark::State& state) {
  const char* algorithm = simulated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  const bool prepare_once = state.range(2) != 0;
  const std::int64_t bytes = state.range(3) > 0 ? state.range(3) : std::int64_t{64} << 20;
  state.SetLabel(fmt::format("{}{}, {} B", algorithm, prepare_once ? ", prepared" : "", bytes));
  const Topology topology = make_preset_topology(fmt::format("switch:{}", nranks));
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  const simulator::PreparedSchedule prepared =
      prepare_once ? simulator::PreparedSchedule(schedule) : simulator::PreparedSchedule::unpacked(schedule);
  simulator::ClosedFormModel model(topology);
  for (auto _ : state) benchmark::DoNotOptimize(model.predict(prepared, bytes / 4, DataType::float32));
}
void BM_prepare(benchmark::State& state) {
  const char* algorithm = simulated_algorithms[state.range(0)];
  state.SetLabel(algorithm);
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(simulator::PreparedSchedule(schedule).compact());
}
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1, 2, 3, 4}, {1024, 4096}, {0}, {0}})->Unit(benchmark::kMillisecond);
// The closed-form goal is any N <= 65536 in 50 ms: every algorithm at the largest N and at the
// largest N that is not a power of two (halving_doubling then folds, and no rank runs alike; 2^24
// elements do not split into 65535 equal chunks, so ring and interval_paired walk every rank).
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1, 2, 3, 4}, {65535}, {0, 1}, {0}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1, 2, 3, 4}, {65536}, {0, 1}, {0}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1, 2, 3, 4}, {61455}, {0, 1}, {0}})->Unit(benchmark::kMillisecond);
// Small sizes where ring's chunks are uneven with a period of N ranks (loads_period): before the
// tick grid (rotated_run.hpp) its all-gather never settled here, 1.3 - 4.5 s a call.
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1}, {65521, 65535}, {0}, {4096}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1}, {61455}, {0}, {8192}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_prepare)->ArgsProduct({{2, 3, 4}, {61455, 65535, 65536}})->Unit(benchmark::kMillisecond);

// One flow-level simulation of a 64 MiB float32 all-reduce on switch:N, whole transfers; the
// model (and its route cache) is built outside the loop, as a sweep reuses it. Goals: ring at
// N = 1024 and interval_paired at N = 4096 in 5 s each.
void BM_flow_level(benchmark::State& state) {
  const char* algorithm = simulated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  const Topology topology = make_preset_topology(fmt::format("switch:{}", nranks));
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  simulator::FlowLevelModel model(topology);
  std::int64_t transfers = 0;
  for (auto _ : state) {
    const simulator::FlowPrediction predicted = model.predict(schedule, std::int64_t{1} << 24, DataType::float32);
    transfers = predicted.transfers;
    benchmark::DoNotOptimize(predicted.prediction.seconds);
  }
  state.SetLabel(fmt::format("{} ({} transfers)", algorithm, transfers));
}
BENCHMARK(BM_flow_level)->Args({0, 1024})->Args({1, 4096})->Args({0, 256})->Args({1, 1024})->Args({2, 1024})
    ->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(false);

}  // namespace
}  // namespace ringlab
