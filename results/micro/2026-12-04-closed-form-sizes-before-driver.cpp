// Worst closed-form call over sizes 8 B .. 64 MiB (powers of two, float32) per (N, algorithm) on switch:N.
#include <chrono>
#include <cstdio>
#include <string>
#include "algorithms/algorithm.hpp"
#include "closed_form.hpp"
#include "presets.hpp"
using namespace ringlab;
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int n = atoi(argv[i]);
    Topology t = make_preset_topology("switch:" + std::to_string(n));
    for (const char* algo : {"ring", "interval_paired"}) {
      Schedule s = make_schedule(algo, Collective::allreduce, n);
      simulator::ClosedFormModel m(t);
      double worst = 0, total = 0; long worst_bytes = 0;
      for (long bytes = 8; bytes <= (64l << 20); bytes *= 2) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = m.predict(s, bytes / 4, DataType::float32);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        total += ms;
        if (ms > worst) { worst = ms; worst_bytes = bytes; }
        (void)r;
      }
      printf("N=%6d %-16s worst %8.1f ms at %9ld B, all 24 sizes %8.1f ms\n", n, algo, worst, worst_bytes, total);
      fflush(stdout);
    }
  }
}
