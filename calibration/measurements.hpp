// What `ringlab calibrate` measures, on the same Communicator the executor uses (so under mpiexec
// the shared-memory transport is what is measured). Never an all-reduce. Every rank calls each
// function; ranks that take no part in a measurement sleep (they poll a release message every
// 100 us), so the ranks that measure have the cores to themselves, except where
// measure_waiting_mates asks them to poll. Results are complete on rank 0.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/fault_injection.hpp"
#include "calibration/form_reduce.hpp"
#include "calibration/type_op_reduce.hpp"

namespace ringlab::calibration {

struct MeasureOptions {
  std::vector<std::int64_t> sizes;   // ping-pong message sizes, bytes
  double min_seconds_per_size = 0.2;  // round trips per size: enough to fill this, 25 .. 10000
  double timeout_seconds = 300;        // any single wait
  // Test only (RINGLAB_FAULT): asked before each size of a pair's ping-pong, the size's index in
  // the sweep as the step, on both ranks of the pair. Null: none. Owned by the caller, one per rank.
  FaultInjector* fault = nullptr;
};

struct PingPongSample {
  std::int64_t bytes = 0;
  int iterations = 0;
  double one_way_median_seconds = 0;  // round trip / 2, median over the iterations
  double one_way_min_seconds = 0;
};

struct PairMeasurement {
  int first = 0;   // the rank that times the round trips
  int second = 0;
  std::vector<PingPongSample> samples;
};

struct ConcurrentSample {
  std::int64_t bytes = 0;       // each active rank sends this much to its right neighbour
  int iterations = 0;
  double seconds = 0;           // median per-iteration time of the slowest active rank
  double aggregate_bytes_per_second = 0;  // active ranks x bytes / seconds
};

struct ConcurrentMeasurement {
  int active_ranks = 0;
  std::vector<ConcurrentSample> samples;
};

// One pair's ping-pong at a few sizes twice in a row: while the other ranks sleep (as every other
// measurement) and while they wait as the executor's ranks do between transfers (polling and
// yielding the CPU). Where ranks share CPUs, the ratio says what a waiting rank costs a busy one.
struct WaitingMatesSample {
  std::int64_t bytes = 0;
  double sleeping_one_way_seconds = 0;  // median
  double polling_one_way_seconds = 0;   // median
};

struct WaitingMatesMeasurement {
  int first = 0;
  int second = 1;
  std::vector<WaitingMatesSample> samples;  // empty: not measured (2 ranks, or an old record)
};

struct ReduceSample {
  std::int64_t bytes = 0;  // bytes of one operand (what the simulator's gamma is per)
  int iterations = 0;
  double median_seconds = 0;
  // The same bytes copied (memcpy, one read and one write), timed beside the reduction: what a
  // copy costs over a reduction (the executor's scratch copies). 0: not measured (records written
  // before 2026-12-05 10:00 UTC).
  double copy_median_seconds = 0;
};

// The pairs measured: every pair (a < b) for N <= 8; for larger N a fixed sample of neighbours,
// the farthest pair from rank 0, and pairs across the middle (docs/calibration.md).
std::vector<std::pair<int, int>> pairs_to_measure(int nranks);

// Ping-pong between each pair in turn, every size; the other ranks sleep.
std::vector<PairMeasurement> measure_ping_pong(Communicator& comm, const MeasureOptions& options);

// Ranks 0 and 1 ping-pong at each of `sizes`, first while the other ranks sleep, then while they
// poll and yield (sched_yield) until released, as a rank of the executor waits for a peer.
// Nothing (every rank returns at once) for fewer than 3 ranks: there is no rank to wait.
WaitingMatesMeasurement measure_waiting_mates(Communicator& comm, const MeasureOptions& options,
                                              const std::vector<std::int64_t>& sizes);

// Ranks 0..active-1 (active = min(N, cores), at least 2) each send `bytes` to their right
// neighbour and receive from their left one at the same time (a ring step): what concurrent
// transfers get from the memory system they share. The other ranks sleep.
ConcurrentMeasurement measure_concurrent(Communicator& comm, int cores, const std::vector<std::int64_t>& sizes,
                                         double timeout_seconds);

// Rank 0 times reduce_to (float32 sum, out-of-place: 2 reads + 1 write) on each operand size
// while the other ranks sleep: one warm-up, then 5 .. 200 timed calls (64 MiB / size), median.
std::vector<ReduceSample> measure_reduce(Communicator& comm, const std::vector<std::int64_t>& sizes,
                                         double timeout_seconds);

// Operand sizes for measure_reduce: 64 KiB, 256 KiB, 1 MiB, 4 MiB (in cache; those below s), every
// power of two from 8 MiB below s (leaving the cache), then s, 2s, 4s with s = 2 x the last-level
// cache, at least 16 MiB and at most 64 MiB (out of cache).
std::vector<std::int64_t> reduce_sizes();
// The smallest operand of reduce_sizes (in cache) and s (the first out of cache).
inline constexpr std::int64_t in_cache_operand_bytes = std::int64_t{64} << 10;
std::int64_t out_of_cache_operand_bytes();

// Rank 0 times the reduce kernel on every DataType x ReduceOp in cache and out of cache
// (type_op_reduce.hpp: time_reduce_by_type_op) while the other ranks sleep. Complete on rank 0;
// the other ranks get an empty measurement.
TypeOpReduceMeasurement measure_reduce_by_type_op(Communicator& comm, double timeout_seconds);

// The reduce kernel in both operand forms (form_reduce.hpp), alone on rank 0 and on ranks
// 0..k-1 at once, k = min(N, cores) (as measure_concurrent streams), while the other ranks sleep.
// Complete on rank 0; the other ranks get an empty measurement.
FormReduceMeasurement measure_reduce_by_form(Communicator& comm, int cores, double timeout_seconds);

}  // namespace ringlab::calibration
