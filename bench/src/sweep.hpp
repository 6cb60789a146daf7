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
#include "statistics.hpp"
#include "execute.hpp"

namespace ringlab::bench {

struct ResultRow {
  std::string algorithm;
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  bool in_place = false;
  int iterations = 0;  // timed calls (samples); 0 for predicted rows
  TimeStats time;     // every figure from one sample per call (statistics.hpp)
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::int64_t wrong = -1;  // -1 when checking is off
  // Device backends: time.* come from CUDA events; this is the timed loop by wall clock / calls.
  std::optional<double> wall_avg_us;
  // Measured rows: per call, how late the last rank entered it after the first (common clock).
  std::optional<SkewStats> rank_skew_us;
  // --converge: whether the median's interval met the rule; empty without --converge.
  std::optional<bool> converged;
};

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
