// The measurement loop of `ringlab bench`: every size, every algorithm interleaved (so ratios are
// fair on a noisy machine), out-of-place then in-place, timed and checked.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "communicator.hpp"
#include "execute.hpp"

namespace ringlab::bench {

struct TimeStats {
  double avg_us = 0;  // aggregated (-a) elapsed of the timed loop / iterations
  double min_us = 0;  // per-iteration statistics of the aggregated per-iteration times
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
  double cv = 0;      // standard deviation / mean of the per-iteration times
};

struct ResultRow {
  std::string algorithm;
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  bool in_place = false;
  int iterations = 0;  // timed calls
  TimeStats time;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::int64_t wrong = -1;  // -1 when checking is off
  // Device backends: time.* come from CUDA events; this is the timed loop by wall clock / calls.
  std::optional<double> wall_avg_us;
};

// Nearest-rank quantile q in (0, 1]: the smallest value that at least q of the values do not
// exceed (p50, p99 of reports; medians and p90s of calibration and compare). 0 for no values.
double nearest_rank_quantile(std::vector<double> values, double q);

// Per-iteration times aggregated over ranks as `average` says, reduced to statistics.
TimeStats summarise(double loop_seconds, const std::vector<double>& iteration_seconds);

// algbw = bytes / time; busbw = algbw * 2(N-1)/N (GB/s, 1 GB = 1e9 B).
double algbw_gbps(std::int64_t bytes, double seconds);
double busbw_gbps(double algbw, int nranks);

struct SweepProgress {
  std::size_t size_index = 0;
  std::size_t size_total = 0;
  std::int64_t bytes = 0;
  std::string algorithm;
};

// The buffers of a sweep, sized for its largest message and touched before any timing. Input and
// output come from the communicator (registered shared memory on the mpi backend when
// options.register_buffers, so peers read sends in place; device memory when
// options.device_buffers), `expected` from the heap. Device buffers are filled and checked
// through `staging`, a host buffer of the same size, with Communicator::copy.
struct SweepBuffers {
  std::unique_ptr<CommBuffer> input;
  std::unique_ptr<CommBuffer> output;
  std::vector<std::byte> expected;
  std::vector<std::byte> staging;
  // How input and output were allocated, in words (the report's config.buffers).
  std::string description() const;
};
// Collective (allocate_buffer is).
SweepBuffers allocate_sweep_buffers(Communicator& comm, const BenchOptions& options, const std::vector<SweepSize>& sizes);

// bench --trace: called on every rank after the timed calls of each (size, algorithm, placement)
// with `run`, which makes one more call of that collective with the options it is given.
using TraceOneCall = std::function<void(const std::string& algorithm, const SweepSize& size, bool in_place,
                                        const std::function<void(const ExecuteOptions&)>& run,
                                        const ExecuteOptions& options)>;

// Runs the sweep on this rank. Rows are complete (aggregated) on rank 0 only. `on_size_done`
// gets the rows of one size (both placements of every algorithm) as soon as they are measured;
// `on_progress` is called before each measurement.
std::vector<ResultRow> run_sweep(Communicator& comm, const BenchOptions& options, const std::vector<SweepSize>& sizes,
                                 SweepBuffers& buffers,
                                 const std::function<void(const std::vector<ResultRow>&)>& on_size_done,
                                 const std::function<void(const SweepProgress&)>& on_progress,
                                 const TraceOneCall& trace_one_call = {});

}  // namespace ringlab::bench
