#include "sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "execute.hpp"
#include "placement.hpp"
#include "test_data.hpp"

namespace ringlab::bench {

namespace {

ReduceOp aggregate_op(Average average) {
  switch (average) {
    case Average::min: return ReduceOp::min;
    case Average::max: return ReduceOp::max;
    default: return ReduceOp::sum;  // mean: sum then divide; rank0: broadcast-like sum of zeros
  }
}

// Combines per-rank timings over ranks with the suite's own ring all-reduce.
std::vector<double> aggregate(Communicator& comm, PreparedCollective& combine, std::vector<double> values,
                              Average average, const ExecuteOptions& options) {
  if (average == Average::rank0 && comm.rank() != 0) std::fill(values.begin(), values.end(), 0.0);
  combine.run(comm, values.data(), values.data(), static_cast<std::int64_t>(values.size()), DataType::float64,
              aggregate_op(average), options);
  if (average == Average::mean)
    for (double& value : values) value /= comm.size();
  return values;
}

// Writes this rank's input for `size` into the input buffer (through the staging buffer for device memory).
void load_input(Communicator& comm, SweepBuffers& buffers, const BenchOptions& options, const SweepSize& size) {
  std::byte* input = buffers.input->bytes().data();
  if (!buffers.input->on_device()) {
    fill_input(input, size.count, options.type, options.op, comm.rank(), comm.size());
    return;
  }
  fill_input(buffers.staging.data(), size.count, options.type, options.op, comm.rank(), comm.size());
  comm.copy(input, buffers.staging.data(), static_cast<std::size_t>(size.bytes));
}

// Elements of `result` that differ from the expected values (read back through staging for device memory).
std::int64_t wrong_elements(Communicator& comm, SweepBuffers& buffers, const BenchOptions& options,
                            const SweepSize& size, const std::byte* result) {
  if (buffers.input->on_device()) {
    comm.copy(buffers.staging.data(), result, static_cast<std::size_t>(size.bytes));
    result = buffers.staging.data();
  }
  return count_mismatches(result, buffers.expected.data(), size.count, options.type);
}

}  // namespace

std::string SweepBuffers::description() const {
  if (!input || !output) return "not allocated";
  const std::string in = input->description();
  return in == output->description() ? in : fmt::format("input: {}; output: {}", in, output->description());
}

SweepBuffers allocate_sweep_buffers(Communicator& comm, const BenchOptions& options, const std::vector<SweepSize>& sizes) {
  std::int64_t largest = 0;
  for (const SweepSize& size : sizes) largest = std::max(largest, size.bytes);
  const auto bytes = static_cast<std::size_t>(largest);
  const auto deadline = Clock::now() + timeout_from_seconds(options.timeout_seconds);
  auto allocate = [&] {
    return options.register_buffers || options.device_buffers
               ? comm.allocate_buffer(bytes, deadline)
               : make_heap_buffer(bytes, "heap memory, not registered (-R 0)");
  };
  SweepBuffers buffers;
  buffers.input = allocate();
  buffers.output = allocate();
  if (options.check) buffers.expected.resize(bytes);
  if (buffers.input->on_device()) buffers.staging.resize(bytes);
  // Touch every page before any timing (device memory arrives zero-filled).
  for (CommBuffer* buffer : {buffers.input.get(), buffers.output.get()})
    if (!buffer->on_device()) std::fill(buffer->bytes().begin(), buffer->bytes().end(), std::byte{0});
  return buffers;
}

double nearest_rank_quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

TimeStats summarise(double loop_seconds, const std::vector<double>& iteration_seconds) {
  TimeStats stats;
  if (iteration_seconds.empty()) return stats;
  std::vector<double> sorted = iteration_seconds;
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(sorted.size());
  auto at_quantile = [&](double q) { return nearest_rank_quantile(sorted, q) * 1e6; };
  stats.avg_us = loop_seconds / n * 1e6;
  stats.min_us = sorted.front() * 1e6;
  stats.p50_us = at_quantile(0.5);
  stats.p99_us = at_quantile(0.99);
  stats.max_us = sorted.back() * 1e6;
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  double variance = 0;
  for (double value : sorted) variance += (value - mean) * (value - mean);
  stats.cv = mean > 0 ? std::sqrt(variance / n) / mean : 0.0;
  return stats;
}

double algbw_gbps(std::int64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

double busbw_gbps(double algbw, int nranks) { return nranks > 1 ? algbw * 2.0 * (nranks - 1) / nranks : 0.0; }

std::vector<ResultRow> run_sweep(Communicator& comm, const BenchOptions& options, const std::vector<SweepSize>& sizes,
                                 SweepBuffers& buffers,
                                 const std::function<void(const std::vector<ResultRow>&)>& on_size_done,
                                 const std::function<void(const SweepProgress&)>& on_progress,
                                 const TraceOneCall& trace_one_call) {
  ExecuteOptions execute;
  execute.segment_bytes = options.segment_bytes;
  execute.timeout = timeout_from_seconds(options.timeout_seconds);
  FaultInjector fault(options.fault);
  execute.fault = &fault;
  ExecuteOptions timed = execute;
  timed.check_consistency = false;
  auto deadline = [&] { return Clock::now() + execute.timeout; };

  std::vector<PreparedCollective> prepared;
  for (const std::string& name : options.algorithms)
    prepared.emplace_back(name, Collective::allreduce, options.algorithm_options, comm.size(), comm.rank());
  PreparedCollective combine("ring", Collective::allreduce, {}, comm.size(), comm.rank());

  std::byte* input = buffers.input->bytes().data();
  std::byte* output = buffers.output->bytes().data();
  std::vector<ResultRow> all_rows;
  for (std::size_t index = 0; index < sizes.size(); ++index) {
    const SweepSize& size = sizes[index];
    if (options.check)
      fill_expected_allreduce(buffers.expected.data(), size.count, options.type, options.op, comm.size());
    std::vector<ResultRow> size_rows;
    for (PreparedCollective& collective : prepared) {
      if (on_progress) on_progress({index, sizes.size(), size.bytes, collective.algorithm()});
      for (bool in_place : {false, true}) {
        std::byte* result = in_place ? input : output;
        auto run = [&](const ExecuteOptions& run_options) {
          collective.run(comm, input, result, size.count, options.type, options.op, run_options);
        };
        load_input(comm, buffers, options, size);
        for (int i = 0; i < options.warmup_iterations; ++i) run(i == 0 ? execute : timed);
        comm.synchronize();
        try {
          comm.barrier(deadline());
        } catch (const TimeoutError& error) {
          throw TimeoutError(fmt::format("{} [bench: the barrier before timing {} at {} B {}, after --timeout {} s]",
                                         error.what(), collective.algorithm(), size.bytes,
                                         name_of(placement_of(in_place)), options.timeout_seconds));
        }
        const int iterations = iterations_for(options, size.bytes);
        // [0] the loop, [1..iterations] each call, [iterations + 1] the loop by wall clock (the check
        // of device timing). Device backends time by CUDA events: a mark before the loop and after
        // every call, on the rank's stream, with no host synchronisation inside the loop.
        std::vector<double> times(static_cast<std::size_t>(iterations) + 2);
        const auto loop_start = Clock::now();
        comm.record_time_mark();
        for (int i = 0; i < iterations; ++i) {
          const auto start = Clock::now();
          run(timed);
          comm.record_time_mark();
          times[static_cast<std::size_t>(i) + 1] = std::chrono::duration<double>(Clock::now() - start).count();
        }
        comm.synchronize();
        const double wall_loop = std::chrono::duration<double>(Clock::now() - loop_start).count();
        const std::vector<double> marks = comm.take_time_marks();
        const bool device_timed = marks.size() == static_cast<std::size_t>(iterations);
        if (device_timed) std::copy(marks.begin(), marks.end(), times.begin() + 1);
        times[0] = device_timed ? std::accumulate(marks.begin(), marks.end(), 0.0) : wall_loop;
        times.back() = wall_loop;
        const std::vector<double> combined = aggregate(comm, combine, times, options.average, timed);

        ResultRow row;
        row.algorithm = collective.algorithm();
        row.size_bytes = size.bytes;
        row.count = size.count;
        row.in_place = in_place;
        row.iterations = iterations;
        row.time = summarise(combined[0], std::vector<double>(combined.begin() + 1, combined.end() - 1));
        if (device_timed) row.wall_avg_us = combined.back() / iterations * 1e6;
        row.algbw_gbps = algbw_gbps(size.bytes, row.time.avg_us * 1e-6);
        row.busbw_gbps = busbw_gbps(row.algbw_gbps, comm.size());
        if (trace_one_call) trace_one_call(collective.algorithm(), size, in_place, run, timed);
        if (options.check) {
          load_input(comm, buffers, options, size);
          run(timed);
          std::int64_t wrong = wrong_elements(comm, buffers, options, size, result);
          combine.run(comm, &wrong, &wrong, 1, DataType::int64, ReduceOp::sum, timed);
          row.wrong = wrong;
        }
        size_rows.push_back(row);
      }
    }
    if (on_size_done) on_size_done(size_rows);
    all_rows.insert(all_rows.end(), size_rows.begin(), size_rows.end());
  }
  return all_rows;
}

}  // namespace ringlab::bench
