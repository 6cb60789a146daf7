// Soak test (CTest label "soak"): every schedule-based all-reduce, run over and over on the
// threads backend at mixed sizes, types, ops, rank counts and placements, every call checked.
// Steps:
//   1. warm-up: rounds (every combination once each) for a quarter of RINGLAB_SOAK_SECONDS
//      (default 60), so that buffers, schedules and caches reach their size;
//   2. sample the bytes held from malloc (mallinfo2: in-use chunks of every arena plus mmapped
//      blocks), the thread count and VmRSS;
//   3. repeat rounds until RINGLAB_SOAK_SECONDS have passed;
//   4. sample again; pass when no element was ever wrong (warm-up included), the bytes held from
//      malloc grew by less than the bound and no thread was left behind. VmRSS is printed, not
//      asserted: it also counts freed memory glibc keeps (arenas, its cache of thread stacks),
//      which moved by 0 to 14.6 MiB between two samples in runs where the bytes held did not move.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <malloc.h>
#include <mutex>
#include <string>
#include <vector>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/expected_values.hpp"
#include "tests/sanitizer_scale.hpp"

namespace ringlab {
namespace {

// Growth of the bytes held from malloc allowed after the warm-up. A leak of the smallest chunk
// (32 bytes) per call crosses it after 8192 calls; a run makes tens of thousands after its
// warm-up. Without a leak the bytes held move by about 1 KiB (100 KiB before and after, 2026-12-08).
constexpr std::int64_t heap_growth_bound_kib = 256;

// Under AddressSanitizer its own allocator serves malloc, so glibc's mallinfo2 does not see the
// program's memory; there LeakSanitizer checks for leaks at exit instead.
constexpr bool heap_growth_is_checked = !test_scale::under_address_sanitizer;

struct MemorySample {
  std::int64_t heap_kib = 0;   // bytes held from malloc
  std::int64_t threads = 0;    // "Threads:" of /proc/self/status
  std::int64_t rss_kib = 0;    // "VmRSS:" of /proc/self/status
};

std::int64_t status_field(const std::string& wanted) {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == wanted) {
      std::int64_t value = 0;
      status >> value;
      return value;
    }
    status.ignore(1 << 12, '\n');
  }
  return -1;
}

MemorySample sample_memory() {
  malloc_trim(0);
  const struct mallinfo2 info = mallinfo2();
  return {static_cast<std::int64_t>((info.uordblks + info.hblkhd) / 1024), status_field("Threads:"),
          status_field("VmRSS:")};
}

double soak_seconds() {
  const char* text = std::getenv("RINGLAB_SOAK_SECONDS");
  return text != nullptr ? std::atof(text) : 60.0;
}

struct RoundResult {
  std::int64_t calls = 0;
  std::int64_t wrong = 0;
};

// One round: for each rank count and algorithm, one batch of calls over mixed sizes, types, ops
// and placements on fresh threads; `variant` shifts which type and op each size gets.
RoundResult run_round(int variant) {
  static constexpr std::int64_t counts[] = {1, 3, 17, 1000, 4099, 65543, 262147};
  static constexpr DataType types[] = {DataType::float32, DataType::int32,  DataType::float64,
                                       DataType::bfloat16, DataType::int64, DataType::float16};
  static constexpr ReduceOp ops[] = {ReduceOp::sum, ReduceOp::max, ReduceOp::min, ReduceOp::prod, ReduceOp::avg};
  std::vector<std::string> algorithms = allreduce_implementations();
  std::erase(algorithms, std::string(mpi_native));
  RoundResult result;
  std::mutex mutex;
  for (int nranks : {3, 4, 5}) {
    for (const std::string& algorithm : algorithms) {
      run_threads(nranks, [&](Communicator& comm) {
        PreparedCollective prepared(algorithm, Collective::allreduce, {}, comm.size(), comm.rank());
        ExecuteOptions options;
        options.timeout = std::chrono::seconds(60);
        options.segment_bytes = (variant % 2 == 0) ? std::size_t{1} << 20 : std::size_t{16} << 10;
        RoundResult mine;
        for (std::size_t i = 0; i < std::size(counts); ++i) {
          const std::int64_t count = counts[i];
          const DataType type = types[(i + static_cast<std::size_t>(variant)) % std::size(types)];
          const ReduceOp op = ops[(i + static_cast<std::size_t>(variant) / 2) % std::size(ops)];
          const std::size_t bytes = checked_byte_count(count, type);
          std::vector<std::byte> input(bytes), output(bytes), expected(bytes);
          fill_input(input.data(), count, type, op, comm.rank(), comm.size());
          fill_expected_allreduce(expected.data(), count, type, op, comm.size());
          const bool in_place = (i + static_cast<std::size_t>(variant)) % 2 == 0;
          std::byte* target = in_place ? input.data() : output.data();
          prepared.run(comm, input.data(), target, count, type, op, options);
          mine.wrong += count_mismatches(target, expected.data(), count, type);
          ++mine.calls;
        }
        const std::lock_guard lock(mutex);
        result.calls += mine.calls;
        result.wrong += mine.wrong;
      });
    }
  }
  return result;
}

TEST(Soak, EveryAlgorithmMixedSizesNoWrongElementNoGrowth) {
  const double budget = soak_seconds();
  auto seconds_since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const auto start = std::chrono::steady_clock::now();
  RoundResult total;
  int rounds = 0;
  auto run_until = [&](double seconds) {
    do {
      const RoundResult round = run_round(rounds++);
      total.calls += round.calls;
      total.wrong += round.wrong;
    } while (seconds_since(start) < seconds);
  };
  // Warm-up: a quarter of the budget, so that anything filled once (caches, glibc's arenas) is full.
  run_until(budget / 4);
  const int warmup_rounds = rounds;
  const std::int64_t calls_before = total.calls;
  const MemorySample before = sample_memory();
  ASSERT_GT(before.threads, 0) << "cannot read Threads from /proc/self/status";
  run_until(budget);
  const MemorySample after = sample_memory();
  std::printf("soak: %d rounds (%d of warm-up), %lld checked calls (summed over ranks) in %.1f s, %lld wrong elements\n"
              "soak: after the warm-up and at the end: held from malloc %lld -> %lld KiB (bound +%lld KiB over %lld calls), "
              "threads %lld -> %lld, VmRSS %lld -> %lld KiB (not asserted)\n",
              rounds, warmup_rounds, static_cast<long long>(total.calls), seconds_since(start),
              static_cast<long long>(total.wrong), static_cast<long long>(before.heap_kib),
              static_cast<long long>(after.heap_kib), static_cast<long long>(heap_growth_bound_kib),
              static_cast<long long>(total.calls - calls_before), static_cast<long long>(before.threads),
              static_cast<long long>(after.threads), static_cast<long long>(before.rss_kib),
              static_cast<long long>(after.rss_kib));
  EXPECT_GT(rounds, warmup_rounds);
  EXPECT_EQ(total.wrong, 0);
  EXPECT_EQ(after.threads, before.threads) << "a round left threads running";
  if (heap_growth_is_checked)
    EXPECT_LT(after.heap_kib - before.heap_kib, heap_growth_bound_kib);
  else
    std::printf("soak: growth of the bytes held not asserted under AddressSanitizer (its own allocator); LeakSanitizer checks leaks at exit\n");
}

}  // namespace
}  // namespace ringlab
