// The measurement loop of `ringlab bench`: every size, every algorithm interleaved (so ratios are
// fair on a noisy machine), out-of-place then in-place, timed and checked.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/src/bench_options.hpp"
#include "collectives/communicator.hpp"
#include "collectives/execute.hpp"
#include "report/result_row.hpp"

namespace ringlab::bench {

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
// through `staging`, a host buffer of the same size, with DeviceData::copy.
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
std::vector<report::ResultRow> run_sweep(Communicator& comm, const BenchOptions& options,
                                         const std::vector<SweepSize>& sizes, SweepBuffers& buffers,
                                         const std::function<void(const std::vector<report::ResultRow>&)>& on_size_done,
                                         const std::function<void(const SweepProgress&)>& on_progress,
                                         const TraceOneCall& trace_one_call = {});

}  // namespace ringlab::bench
