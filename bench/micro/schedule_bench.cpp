// Schedule generation at N = 4096 and the verifier at N = 256 (issue goals: < 50 ms and < 2 s).
#include <benchmark/benchmark.h>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/verify.hpp"

namespace ringlab {
namespace {

const char* const generated_algorithms[] = {"ring", "interval_paired", "parameter_server", "halving_doubling",
                                            "recursive_doubling"};

// The whole schedule object (circulant templates for ring and interval_paired).
void BM_make_schedule(benchmark::State& state) {
  const char* algorithm = generated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  state.SetLabel(algorithm);
  for (auto _ : state) benchmark::DoNotOptimize(make_schedule(algorithm, Collective::allreduce, nranks));
}
BENCHMARK(BM_make_schedule)->ArgsProduct({{0, 1, 2, 3, 4}, {4096}})->Unit(benchmark::kMillisecond);

// What one executor rank does at start-up: build the schedule and resolve its own program.
void BM_rank_program(benchmark::State& state) {
  const char* algorithm = generated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  state.SetLabel(algorithm);
  for (auto _ : state)
    benchmark::DoNotOptimize(make_schedule(algorithm, Collective::allreduce, nranks).program(nranks / 2));
}
BENCHMARK(BM_rank_program)->ArgsProduct({{0, 1}, {4096}})->Unit(benchmark::kMillisecond);

// Every rank's program resolved (what the verifier and a simulator read).
void BM_materialise_all_ranks(benchmark::State& state) {
  const char* algorithm = generated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  state.SetLabel(algorithm);
  for (auto _ : state) {
    const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
    for (int rank = 0; rank < nranks; ++rank) benchmark::DoNotOptimize(schedule.program(rank));
  }
}
BENCHMARK(BM_materialise_all_ranks)->ArgsProduct({{0, 1}, {4096}})->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_verify(benchmark::State& state) {
  const char* algorithm = generated_algorithms[state.range(0)];
  const int nranks = static_cast<int>(state.range(1));
  state.SetLabel(algorithm);
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  for (auto _ : state) {
    const VerifyResult result = verify(schedule);
    if (!result.ok()) state.SkipWithError("schedule failed verification");
  }
}
BENCHMARK(BM_verify)->ArgsProduct({{0, 1, 2, 3, 4}, {256}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ringlab
