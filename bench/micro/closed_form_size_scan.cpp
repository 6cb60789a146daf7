// The closed form's time over message sizes: ringlab_closed_form_scan fixes 64 MiB, but a sweep
// prices every size, and at small ones the chunks of ring and interval_paired are uneven (count
// not a multiple of nchunks) in ways 64 MiB never is. Per N given (default: a set with many and
// with few factors of 2) and circulant algorithm: one closed-form prediction of a float32
// all-reduce on switch:N at every power of two from 8 B to 64 MiB, on one model (route costs
// cached after the first size, as in `ringlab simulate`). Writes JSON to stdout (each size's
// milliseconds), the worst size per (N, algorithm) to stderr.
//   ringlab_closed_form_size_scan [N ...]
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

constexpr std::int64_t largest_bytes = std::int64_t{64} << 20;

int run(int argc, char** argv) {
  std::vector<int> ranks = {1000, 1024, 4096, 12288, 16384, 49152, 61455, 65520, 65521, 65535, 65536};
  if (argc > 1) ranks.clear();
  for (int i = 1; i < argc; ++i) {
    const int nranks = std::atoi(argv[i]);
    if (nranks < 2 || nranks > 65536) {
      std::cerr << fmt::format("N must be 2 .. 65536, not '{}'\nusage: ringlab_closed_form_size_scan [N ...]\n", argv[i]);
      return 2;
    }
    ranks.push_back(nranks);
  }
  nlohmann::json rows = nlohmann::json::array();
  for (int nranks : ranks) {
    const Topology topology = make_preset_topology(fmt::format("switch:{}", nranks));
    for (const char* algorithm : {"ring", "interval_paired"}) {
      const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
      simulator::ClosedFormModel model(topology);
      nlohmann::json sizes = nlohmann::json::array();
      double worst_ms = 0;
      std::int64_t worst_bytes = 0;
      for (std::int64_t bytes = 8; bytes <= largest_bytes; bytes *= 2) {
        const auto start = std::chrono::steady_clock::now();
        const simulator::Prediction predicted = model.predict(schedule, bytes / 4, DataType::float32);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        sizes.push_back({{"bytes", bytes}, {"ms", ms}, {"steps_extrapolated", predicted.steps_extrapolated},
                         {"steps", predicted.steps}, {"predicted_seconds", predicted.seconds}});
        if (ms > worst_ms) {
          worst_ms = ms;
          worst_bytes = bytes;
        }
      }
      std::cerr << fmt::format("N = {:5} {:<16} worst {:9.2f} ms at {:>8} B (loads repeat every {} ranks there)\n",
                               nranks, algorithm, worst_ms, worst_bytes,
                               simulator::loads_period(nranks, schedule.nchunks, worst_bytes / 4));
      rows.push_back({{"nranks", nranks}, {"algorithm", algorithm}, {"worst_ms", worst_ms},
                      {"worst_bytes", worst_bytes}, {"sizes", std::move(sizes)}});
    }
  }
  const nlohmann::json report{{"what", "closed-form prediction time per size, float32 all-reduce on switch:N"},
                              {"rows", std::move(rows)}};
  std::cout << report.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace ringlab

int main(int argc, char** argv) { return ringlab::run(argc, argv); }
