// The threads backend's all-reduce per algorithm (4 ranks, float32 sum).
#include <benchmark/benchmark.h>

#include <vector>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"

namespace ringlab {
namespace {

void BM_threads_allreduce(benchmark::State& state) {
  const auto names = allreduce_implementations();
  const std::string& algorithm = names.at(static_cast<std::size_t>(state.range(0)));
  const std::int64_t count = state.range(1);
  constexpr int nranks = 4;
  state.SetLabel(algorithm);
  for (auto _ : state) {
    // Each iteration runs 10 all-reduces on 4 fresh threads; thread start-up is in the figure.
    run_threads(nranks, [&](Communicator& comm) {
      PreparedCollective prepared(algorithm, Collective::allreduce, {}, nranks, comm.rank());
      std::vector<float> data(static_cast<std::size_t>(count), 1.0f);
      ExecuteOptions options;
      options.check_consistency = false;
      for (int i = 0; i < 10; ++i)
        prepared.run(comm, data.data(), data.data(), count, DataType::float32, ReduceOp::sum, options);
    });
  }
  state.SetBytesProcessed(state.iterations() * 10 * count * static_cast<std::int64_t>(sizeof(float)));
}
// mpi-native (the last name) needs MPI, so it is left out here.
BENCHMARK(BM_threads_allreduce)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {1024, 1 << 20}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace ringlab
