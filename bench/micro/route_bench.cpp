// Routing on large presets: building a Router and answering one route per rank. The unit test
// (tests/test_topology.cpp, ThousandsOfRanks*) checks the routes; the time is measured here.
#include <benchmark/benchmark.h>

#include <string>

#include "topology/presets.hpp"
#include "topology/routing.hpp"

namespace ringlab {
namespace {

// Argument 0: which preset; every rank asks for the route to the rank half-way round.
const char* const routed_presets[] = {"switch:4096", "nvswitch:8,nodes=512", "fully-connected:1024"};

void BM_route_every_rank(benchmark::State& state) {
  const std::string preset = routed_presets[state.range(0)];
  state.SetLabel(preset);
  for (auto _ : state) {
    const Topology topology = make_preset_topology(preset);
    Router router(topology);
    const int nranks = topology.num_endpoints();
    for (int rank = 0; rank < nranks; ++rank) benchmark::DoNotOptimize(router.route(rank, (rank + nranks / 2) % nranks));
  }
}
BENCHMARK(BM_route_every_rank)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ringlab
