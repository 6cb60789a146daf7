// The closed-form simulator on switch:N: one prediction of one message size (the schedule and
// the topology are built outside the timed loop; route costs are cached after the first call,
// as in a size sweep).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "algorithms/algorithm.hpp"
#include "closed_form.hpp"
#include "presets.hpp"

namespace ringlab {
namespace {

const char* const simulated_algorithms[] = {"ring", "interval_paired", "parameter_server", "halving_doubling",
                                            "recursive_doubling"};

void BM_closed_form(benchmark::State& state) {
  const char* algorithm = simulated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  state.SetLabel(algorithm);
  const Topology topology = make_preset_topology(fmt::format("switch:{}", nranks));
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  simulator::ClosedFormModel model(topology);
  for (auto _ : state) benchmark::DoNotOptimize(model.predict(schedule, std::int64_t{1} << 24, DataType::float32));
}
BENCHMARK(BM_closed_form)->ArgsProduct({{0, 1, 2, 3, 4}, {1024, 4096}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ringlab
