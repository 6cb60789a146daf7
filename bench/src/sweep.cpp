#include "bench/src/sweep.hpp"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "report/bandwidth.hpp"
#include "collectives/capabilities.hpp"
#include "collectives/clock_offset.hpp"
#include "collectives/execute.hpp"
#include "collectives/placement.hpp"
#include "collectives/expected_values.hpp"

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
  data_work(comm).copy(input, buffers.staging.data(), static_cast<std::size_t>(size.bytes));
}

// Elements of `result` that differ from the expected values (read back through staging for device memory).
std::int64_t wrong_elements(Communicator& comm, SweepBuffers& buffers, const BenchOptions& options,
                            const SweepSize& size, const std::byte* result) {
  if (buffers.input->on_device()) {
    data_work(comm).copy(buffers.staging.data(), result, static_cast<std::size_t>(size.bytes));
    result = buffers.staging.data();
  }
  return count_mismatches(result, buffers.expected.data(), size.count, options.type);
}

// One batch of timed calls on this rank: each call's time and its entry time on rank 0's clock.
struct BatchTimes {
  std::vector<double> call_seconds;
  std::vector<double> entry_seconds;  // on rank 0's clock (this rank's clock - its offset)
  double loop_seconds = 0;            // the batch's loop (device backends: the sum of the events)
  double wall_loop_seconds = 0;       // the batch's loop by wall clock
  bool device_timed = false;
};

// Times `calls` calls of `run`. Device backends (DeviceTiming) time by CUDA events: a mark before
// the loop and after every call, on the rank's stream, with no host synchronisation inside the loop.
template <typename Run>
BatchTimes time_batch(Communicator& comm, const Run& run, std::int64_t calls, double clock_offset) {
  BatchTimes batch;
  batch.call_seconds.resize(static_cast<std::size_t>(calls));
  batch.entry_seconds.resize(static_cast<std::size_t>(calls));
  DeviceTiming* const timing = comm.device_timing();
  const auto loop_start = Clock::now();
  if (timing != nullptr) timing->record_time_mark();
  for (std::size_t i = 0; i < batch.call_seconds.size(); ++i) {
    const auto start = Clock::now();
    run();
    if (timing != nullptr) timing->record_time_mark();
    batch.call_seconds[i] = std::chrono::duration<double>(Clock::now() - start).count();
    batch.entry_seconds[i] = clock_seconds(start) - clock_offset;
  }
  data_work(comm).synchronize();
  batch.wall_loop_seconds = std::chrono::duration<double>(Clock::now() - loop_start).count();
  const std::vector<double> marks = timing != nullptr ? timing->take_time_marks() : std::vector<double>{};
  batch.device_timed = marks.size() == batch.call_seconds.size() && !marks.empty();
  if (batch.device_timed) batch.call_seconds = marks;
  batch.loop_seconds =
      batch.device_timed ? std::accumulate(marks.begin(), marks.end(), 0.0) : batch.wall_loop_seconds;
  return batch;
}

// Every call's rank skew: the last rank's entry minus the first's (one max all-reduce of the
// entries and their negations).
std::vector<double> rank_skews(Communicator& comm, PreparedCollective& combine, const std::vector<double>& entries,
                               const ExecuteOptions& options) {
  std::vector<double> extremes(entries.size() * 2);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    extremes[i] = entries[i];
    extremes[entries.size() + i] = -entries[i];
  }
  combine.run(comm, extremes.data(), extremes.data(), static_cast<std::int64_t>(extremes.size()), DataType::float64,
              ReduceOp::max, options);
  std::vector<double> skews(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) skews[i] = std::max(0.0, extremes[i] + extremes[entries.size() + i]);
  return skews;
}

// Rank 0's decision, the same on every rank: stop?, converged?, calls of the next batch.
ConvergeDecision agree_on_decision(Communicator& comm, PreparedCollective& combine, const ConvergeDecision& mine,
                                   const ExecuteOptions& options) {
  std::vector<double> decision = {mine.stop ? 1.0 : 0.0, mine.converged ? 1.0 : 0.0,
                                  static_cast<double>(mine.next_calls)};
  if (comm.rank() != 0) std::fill(decision.begin(), decision.end(), 0.0);
  combine.run(comm, decision.data(), decision.data(), static_cast<std::int64_t>(decision.size()), DataType::float64,
              ReduceOp::sum, options);
  return {decision[0] != 0, decision[1] != 0, static_cast<std::int64_t>(decision[2])};
}

// All of one row's samples, aggregated over ranks, as rank 0 holds them.
struct RowSamples {
  std::vector<double> call_seconds;  // one per call, under the -a rule
  std::vector<double> skew_seconds;  // one per call
  double loop_seconds = 0;           // the loops' time under the -a rule, summed over batches
  double wall_loop_seconds = 0;
  bool device_timed = true;
  std::optional<bool> converged;
};

// Times one (size, algorithm, placement): `first_calls` calls, then, under --converge, batches
// until rank 0 says stop. Collective; every rank returns the same aggregated samples.
template <typename Run>
RowSamples measure_row(Communicator& comm, PreparedCollective& combine, const Run& run, const BenchOptions& options,
                       std::int64_t first_calls, double clock_offset, const ExecuteOptions& timed) {
  RowSamples samples;
  std::int64_t calls = first_calls;
  const auto row_start = Clock::now();
  for (;;) {
    const BatchTimes batch = time_batch(comm, run, calls, clock_offset);
    // [0] the loop, [1..calls] each call, [calls + 1] the loop by wall clock.
    std::vector<double> times;
    times.reserve(batch.call_seconds.size() + 2);
    times.push_back(batch.loop_seconds);
    times.insert(times.end(), batch.call_seconds.begin(), batch.call_seconds.end());
    times.push_back(batch.wall_loop_seconds);
    const std::vector<double> combined = aggregate(comm, combine, times, options.average, timed);
    samples.call_seconds.insert(samples.call_seconds.end(), combined.begin() + 1, combined.end() - 1);
    samples.loop_seconds += combined.front();
    samples.wall_loop_seconds += combined.back();
    samples.device_timed = samples.device_timed && batch.device_timed;
    const std::vector<double> skews = rank_skews(comm, combine, batch.entry_seconds, timed);
    samples.skew_seconds.insert(samples.skew_seconds.end(), skews.begin(), skews.end());
    if (!options.converge) return samples;
    ConvergeDecision mine;
    if (comm.rank() == 0) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - row_start).count();
      mine = decide_convergence(report::summarise(samples.loop_seconds, samples.call_seconds),
                                static_cast<std::int64_t>(samples.call_seconds.size()), elapsed, *options.converge);
    }
    const ConvergeDecision decision = agree_on_decision(comm, combine, mine, timed);
    if (decision.stop) {
      samples.converged = decision.converged;
      return samples;
    }
    calls = decision.next_calls;
  }
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
               ? collective_buffer(comm, bytes, deadline)
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

std::vector<report::ResultRow> run_sweep(Communicator& comm, const BenchOptions& options,
                                         const std::vector<SweepSize>& sizes, SweepBuffers& buffers,
                                         const std::function<void(const std::vector<report::ResultRow>&)>& on_size_done,
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

  // "auto" needs a table with a rule for this job's rank count, checked before anything runs.
  if (std::find(options.algorithms.begin(), options.algorithms.end(), auto_algorithm) != options.algorithms.end()) {
    if (!options.tuning) throw std::invalid_argument("--algo auto needs a tuning table: give --tuning FILE (ringlab tune)");
    select_rule(*options.tuning, Collective::allreduce, comm.size(), 0);
  }
  // Each algorithm named, and for "auto" each one its tuning table can choose, prepared once.
  std::map<std::string, PreparedCollective> prepared;
  const auto prepare = [&](const std::string& name) -> PreparedCollective& {
    auto found = prepared.find(name);
    if (found == prepared.end())
      found = prepared.try_emplace(name, name, Collective::allreduce, options.algorithm_options, comm.size(), comm.rank())
                  .first;
    return found->second;
  };
  PreparedCollective combine("ring", Collective::allreduce, {}, comm.size(), comm.rank());
  const double clock_offset = estimate_clock_offset(comm, deadline());

  std::byte* input = buffers.input->bytes().data();
  std::byte* output = buffers.output->bytes().data();
  std::vector<report::ResultRow> all_rows;
  for (std::size_t index = 0; index < sizes.size(); ++index) {
    const SweepSize& size = sizes[index];
    if (options.check)
      fill_expected_allreduce(buffers.expected.data(), size.count, options.type, options.op, comm.size());
    std::vector<report::ResultRow> size_rows;
    for (const std::string& name : options.algorithms) {
      const SelectionRule* choice =
          name == auto_algorithm ? &select_rule(*options.tuning, Collective::allreduce, comm.size(), size.bytes) : nullptr;
      PreparedCollective& collective = prepare(choice ? choice->algorithm : name);
      if (on_progress) on_progress({index, sizes.size(), size.bytes, name});
      // The chosen segment size for "auto", the sweep's otherwise.
      ExecuteOptions call = execute;
      ExecuteOptions timed_call = timed;
      if (choice) call.segment_bytes = timed_call.segment_bytes = static_cast<std::size_t>(choice->segment_bytes);
      for (bool in_place : {false, true}) {
        std::byte* result = in_place ? input : output;
        auto run = [&](const ExecuteOptions& run_options) {
          collective.run(comm, input, result, size.count, options.type, options.op, run_options);
        };
        load_input(comm, buffers, options, size);
        for (int i = 0; i < options.warmup_iterations; ++i) run(i == 0 ? call : timed_call);
        data_work(comm).synchronize();
        try {
          comm.barrier(deadline());
        } catch (const TimeoutError& error) {
          throw TimeoutError(fmt::format("{} [bench: the barrier before timing {} at {} B {}, after --timeout {} s]",
                                         error.what(), name, size.bytes,
                                         name_of(placement_of(in_place)), options.timeout_seconds));
        }
        RowSamples samples = measure_row(comm, combine, [&] { run(timed_call); }, options,
                                         iterations_for(options, size.bytes), clock_offset, timed_call);
        report::ResultRow row;
        row.algorithm = name;
        if (choice) {
          row.auto_algorithm = choice->algorithm;
          row.auto_segment_bytes = choice->segment_bytes;
        }
        row.size_bytes = size.bytes;
        row.count = size.count;
        row.in_place = in_place;
        row.iterations = static_cast<int>(samples.call_seconds.size());
        row.time = report::summarise(samples.loop_seconds, samples.call_seconds);
        row.rank_skew_us = report::summarise_skew(samples.skew_seconds);
        row.converged = samples.converged;
        if (samples.device_timed) row.wall_avg_us = samples.wall_loop_seconds / row.iterations * 1e6;
        row.algbw_gbps = report::algbw_gbps(size.bytes, row.time.avg_us * 1e-6);
        row.busbw_gbps = report::busbw_gbps(row.algbw_gbps, comm.size());
        if (trace_one_call) trace_one_call(name, size, in_place, run, timed_call);
        if (options.check) {
          load_input(comm, buffers, options, size);
          run(timed_call);
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
