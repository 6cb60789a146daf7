// `ringlab allreduce`: run each all-reduce implementation on real ranks (MPI processes or
// threads), time it and check the result bit for bit. The short, checked run of the main job;
// `ringlab bench` (a later issue) is the full sweep.
#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <memory>

#include "collectives/backend_registry.hpp"
#include "cli/algorithm_options.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "collectives/execute.hpp"
#include "cli/job_options.hpp"
#include "cli/launch.hpp"
#include "io/output_file.hpp"
#include "collectives/placement.hpp"
#include "collectives/step_trace_gather.hpp"
#include "collectives/expected_values.hpp"

namespace ringlab::cli {

namespace {

struct AllreduceArguments {
  std::string algorithms = "all";
  std::string backend = "auto";
  int ranks = 4;
  std::string count = "1M";
  std::string type = "float32";
  std::string op = "sum";
  int iterations = 5;
  std::string segment_bytes = "1M";
  bool in_place = false;
  std::string check = "1";  // -c/--check: 1 = check the result (as bench and nccl-tests), 0 = do not
  double timeout_seconds = default_timeout_seconds;
  AlgorithmOptions options;
  std::string trace;  // --trace FILE: one extra call per implementation, traced
  bool force = false;
};

struct RunResult {
  double seconds_per_call = 0.0;  // slowest rank
  std::int64_t wrong = 0;         // summed over ranks; -1 when not checked (-c 0)
};

// Runs one implementation: a warm-up call, `iterations` timed calls, then one checked call (with -c 1).
RunResult run_one(Communicator& comm, PreparedCollective& prepared, const AllreduceArguments& arguments,
                  std::int64_t count, DataType type, ReduceOp op, const ExecuteOptions& options, MeasuredTrace* trace) {
  const std::size_t bytes = checked_byte_count(count, type);
  std::vector<std::byte> input(bytes);
  std::vector<std::byte> output(bytes);
  const bool check = arguments.check == "1";
  std::vector<std::byte> expected(check ? bytes : 0);
  fill_input(input.data(), count, type, op, comm.rank(), comm.size());
  if (check) fill_expected_allreduce(expected.data(), count, type, op, comm.size());
  void* result = arguments.in_place ? static_cast<void*>(input.data()) : output.data();
  prepared.run(comm, input.data(), result, count, type, op, options);  // warm-up, checks agreement
  ExecuteOptions timed = options;
  timed.check_consistency = false;
  comm.barrier(Clock::now() + options.timeout);
  const auto start = Clock::now();
  for (int i = 0; i < arguments.iterations; ++i) prepared.run(comm, input.data(), result, count, type, op, timed);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (trace != nullptr) {
    const std::string_view placement = name_of(placement_of(arguments.in_place));
    trace->trace_call(
        comm, timed, [&](const ExecuteOptions& traced) { prepared.run(comm, input.data(), result, count, type, op, traced); },
        trace_call_name(prepared.algorithm(), static_cast<std::int64_t>(bytes), placement),
        {{"source", "measured"}, {"algorithm", prepared.algorithm()}, {"bytes", bytes}, {"placement", placement},
         {"ranks", comm.size()}});
  }

  // Combine the figures over ranks with the suite's own ring all-reduce.
  PreparedCollective ring("ring", Collective::allreduce, {}, comm.size(), comm.rank());
  double slowest = arguments.iterations > 0 ? elapsed / arguments.iterations : 0.0;
  ring.run(comm, &slowest, &slowest, 1, DataType::float64, ReduceOp::max, timed);
  if (!check) return {slowest, -1};
  fill_input(input.data(), count, type, op, comm.rank(), comm.size());
  prepared.run(comm, input.data(), result, count, type, op, timed);
  std::int64_t total_wrong = count_mismatches(result, expected.data(), count, type);
  ring.run(comm, &total_wrong, &total_wrong, 1, DataType::int64, ReduceOp::sum, timed);
  return {slowest, total_wrong};
}

int run_on(Communicator& comm, const AllreduceArguments& arguments, const std::optional<FaultSpec>& fault_spec) {
  const std::int64_t count = parse_size(arguments.count);
  const DataType type = parse_data_type(arguments.type);
  const ReduceOp op = parse_reduce_op(arguments.op);
  ExecuteOptions options;
  options.segment_bytes = static_cast<std::size_t>(parse_segment_bytes(arguments.segment_bytes));
  options.timeout = timeout_from_seconds(arguments.timeout_seconds);
  FaultInjector fault(fault_spec);
  options.fault = &fault;
  const bool print = comm.rank() == 0;
  const std::size_t bytes = checked_byte_count(count, type);
  if (print)
    fmt::print("# ringlab allreduce: backend {}, {} ranks, {} elements of {} ({} B), op {}, {}, {} timed iterations\n"
               "{:<20} {:>12} {:>12} {:>12} {:>8}\n",
               comm.backend_name(), comm.size(), count, name_of(type), bytes, name_of(op),
               name_of(placement_of(arguments.in_place)), arguments.iterations, "algorithm", "time (us)",
               "algbw (GB/s)", "busbw (GB/s)", "#wrong");
  std::int64_t total_wrong = 0;
  MeasuredTrace trace;
  for (const std::string& name : parse_name_list(arguments.algorithms, allreduce_implementations())) {
    const BackendInfo* owner = native_allreduce_owner(name);
    if (owner != nullptr && comm.native_allreduce() == nullptr) {
      if (print) fmt::print("{:<20} skipped: needs --backend {}\n", name, owner->name);
      continue;
    }
    PreparedCollective prepared(name, Collective::allreduce, arguments.options, comm.size(), comm.rank());
    const RunResult result =
        run_one(comm, prepared, arguments, count, type, op, options, arguments.trace.empty() ? nullptr : &trace);
    total_wrong += std::max<std::int64_t>(result.wrong, 0);
    const double algbw = result.seconds_per_call > 0 ? static_cast<double>(bytes) / result.seconds_per_call / 1e9 : 0.0;
    const double busbw = algbw * 2.0 * (comm.size() - 1) / comm.size();
    if (print)
      fmt::print("{:<20} {:>12.1f} {:>12.3f} {:>12.3f} {:>8}\n", name, result.seconds_per_call * 1e6, algbw, busbw,
                 result.wrong < 0 ? std::string("N/A") : std::to_string(result.wrong));
  }
  if (print)
    fmt::print("# {}\n", arguments.check != "1" ? "results not checked (-c 0)"
                          : total_wrong == 0   ? "all results correct"
                                               : "WRONG RESULTS");
  if (print && !arguments.trace.empty()) {
    io::write_json_file(arguments.trace,
                        trace.document({{"command", "allreduce"}, {"backend", comm.backend_name()},
                                        {"ranks", comm.size()}, {"count", count}, {"datatype", name_of(type)},
                                        {"segment_bytes", options.segment_bytes}}));
    fmt::print("# trace written to {}\n", arguments.trace);
  }
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace

CommandRunner add_allreduce_command(CLI::App& app) {
  auto arguments = std::make_shared<AllreduceArguments>();
  CLI::App* command = app.add_subcommand(
      "allreduce", "Run, time and check each all-reduce implementation once per iteration (under mpiexec for the "
                   "mpi backend). Exits 1 if any element is wrong.");
  command->add_option("--algo", arguments->algorithms, "Comma-separated implementations, or all")->capture_default_str();
  command->add_option("--backend", arguments->backend, "auto (mpi under mpiexec, else threads) | mpi | threads")
      ->capture_default_str();
  command->add_option("--ranks", arguments->ranks, "Ranks for the threads backend")->capture_default_str();
  command->add_option("--count", arguments->count, "Elements per rank (K/M/G suffixes)")->capture_default_str();
  command->add_option("-c,--check", arguments->check, "Check results (1) or not (0), as bench and nccl-tests")
      ->capture_default_str();
  command->add_option("-d,--datatype", arguments->type, "float32|float64|float16|bfloat16|int32|int64")
      ->capture_default_str();
  command->add_option("-o,--op", arguments->op, "sum|prod|min|max|avg")->capture_default_str();
  command->add_option("-n,--iters", arguments->iterations, "Timed iterations")->capture_default_str();
  command->add_option("--segment-bytes", arguments->segment_bytes, "Segment size, K/M/G suffixes (0 = whole transfers)")
      ->capture_default_str();
  command->add_flag("--in-place", arguments->in_place, "Use the same buffer for input and output");
  add_timeout_option(*command, arguments->timeout_seconds);
  command->add_option("--trace", arguments->trace,
                      "Write a Trace Event Format (Perfetto) timeline of one extra call per implementation: per rank "
                      "and step, send/receive/reduce spans")
      ->check(output_path());
  command->add_flag("--force", arguments->force, "Replace an existing --trace file");
  add_algorithm_options(*command, arguments->options);
  return [arguments] {
    if (arguments->iterations < 0) throw std::invalid_argument("--iters must not be negative");
    if (arguments->check != "0" && arguments->check != "1")
      throw std::invalid_argument(fmt::format(
          "-c/--check takes 0 or 1 (check the result or not), not '{}'; give the element count as --count {}",
          arguments->check, arguments->check));
    parse_segment_bytes(arguments->segment_bytes);  // refused before any rank starts
    // Also refused before any rank starts: every rank would meet them alike, and rank 0 alone says so.
    checked_byte_count(parse_size(arguments->count), parse_data_type(arguments->type));
    parse_reduce_op(arguments->op);
    parse_name_list(arguments->algorithms, allreduce_implementations());
    if (io::is_standard_output(arguments->trace))
      throw std::invalid_argument("--trace -: allreduce prints its table on standard output; give a file name");
    check_output_option(arguments->trace, arguments->force, "--trace");
    checked_timeout(arguments->timeout_seconds);
    const std::optional<FaultSpec> fault = fault_from_environment();
    const std::string backend = resolve_backend(arguments->backend);
    return run_ranks(backend, arguments->ranks, JobSetup{checked_timeout(arguments->timeout_seconds), fault},
                     [&](Communicator& comm) { return run_on(comm, *arguments, fault); });
  };
}

}  // namespace ringlab::cli
