// `ringlab bench`: the all-reduce microbenchmark, nccl-tests style (see docs/bench.md).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <thread>
#include <vector>
#include <nlohmann/json.hpp>

#include "collectives/backend_registry.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "bench/src/bench_options.hpp"
#include "collectives/clock_offset.hpp"
#include "report/csv_format.hpp"
#include "report/machine_info.hpp"
#include "report/nccl_tests_format.hpp"
#include "report/nccl_tests_json.hpp"
#include "collectives/placement.hpp"
#include "bench/src/rank_cpus_exchange.hpp"
#include "report/rank_placement.hpp"
#include "bench/src/bench_report.hpp"
#include "report/utc_timestamp.hpp"
#include "bench/src/sweep.hpp"
#include "bench/src/type_op_sweep.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "collectives/execute.hpp"
#include "collectives/selection_table.hpp"
#include "cli/job_options.hpp"
#include "cli/launch.hpp"
#include "io/output_file.hpp"
#include "cli/setup_phase.hpp"
#include "collectives/step_trace_gather.hpp"
#include "cli/sweep_arguments.hpp"
#ifdef RINGLAB_HAVE_CUDA
#include "collectives/cuda/device_info.hpp"
#endif

namespace ringlab::cli {

namespace {

constexpr int memcpy_release_tag = 31000;  // above every step tag, below the executor's agreement tags

struct BenchArguments {
  SweepArguments sweep;
  int iterations = 20;
  int small_iterations = 0;
  std::string small_max_bytes = "4K";
  int warmup = 5;
  int check = 1;
  std::string op = "sum";
  int average = 3;
  std::string baseline;
  std::string segment_bytes = "1M";
  std::string tuning;  // --tuning FILE: the table --algo auto runs from
  int local_register = 0;
  std::string backend = "auto";
  int ranks = 4;
  int ranks_per_gpu = 0;  // cuda-peer: 0 = one rank per GPU
  int gpus = 0;           // cuda-peer: 0 = as many as the ranks need
  int gpu_buffers = 0;    // mpi: 1 = collective buffers on the GPU
  double timeout_seconds = default_timeout_seconds;
  std::string converge;  // --converge REL[,MAX_SECONDS]; empty: -n calls per row
  bool show_ci = false;  // --ci
  std::string trace;  // --trace FILE: the measured timeline, one extra call per (size, algorithm, placement)
  std::string command_line;
  std::string format = "ringlab";  // the table on standard output: ringlab | nccl-tests
  std::string nccl_json;           // -J: nccl-tests' JSON document
  std::string csv;                 // --csv: one row per result
};

// One (type, op) of the run (-d all / -o all give several): its options and sizes.
struct BenchCase {
  bench::BenchOptions options;
  std::vector<bench::SweepSize> sizes;
};

// One progress line on stderr, only when stderr is a terminal and --quiet is not given.
class SweepProgressLine {
 public:
  explicit SweepProgressLine(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void show(const bench::SweepProgress& progress) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    fmt::print(stderr, "\r\x1b[2K[{}/{}] {} B {}  elapsed {:.1f} s", progress.size_index + 1, progress.size_total,
               progress.bytes, progress.algorithm, elapsed);
    std::fflush(stderr);
  }
  void clear() {
    if (!enabled_) return;
    fmt::print(stderr, "\r\x1b[2K");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  Clock::time_point start_;
};

bench::BenchOptions to_options(const BenchArguments& arguments, const std::string& backend, DataType type, ReduceOp op) {
  bench::BenchOptions options;
  SweepArguments sweep = arguments.sweep;  // -d may be "all": each case's type is set by the caller
  sweep.type = std::string(name_of(type));
  apply_sweep_arguments(sweep, options);
  if (arguments.iterations < 1) throw std::invalid_argument("-n/--iters must be at least 1");
  if (arguments.small_iterations < 0) throw std::invalid_argument("--iters-small must not be negative (0: use -n)");
  if (arguments.warmup < 0) throw std::invalid_argument("-w/--warmup_iters must not be negative");
  if (arguments.check != 0 && arguments.check != 1) throw std::invalid_argument("-c/--check takes 0 or 1");
  if (arguments.average < 0 || arguments.average > 3)
    throw std::invalid_argument("-a/--average takes 0 (rank 0), 1 (mean), 2 (min) or 3 (max)");
  const std::int64_t segment_bytes = parse_segment_bytes(arguments.segment_bytes);
  if (arguments.local_register != 0 && arguments.local_register != 1)
    throw std::invalid_argument("-R/--local_register takes 0 (heap buffers) or 1 (registered buffers)");
  checked_timeout(arguments.timeout_seconds);
  const BackendInfo& backend_info = find_backend(backend);
  if (!(backend_info.ranks_are_threads() && backend_info.uses_devices()) && arguments.ranks_per_gpu != 0)
    throw std::invalid_argument(fmt::format("--ranks-per-gpu applies to --backend cuda-peer, not {}", backend));
  if (arguments.gpu_buffers != 0 && arguments.gpu_buffers != 1)
    throw std::invalid_argument("--gpu-buffers takes 0 (host buffers) or 1 (device buffers)");
  if (arguments.gpu_buffers == 1 && backend_info.buffers != BufferMemory::host_or_device)
    throw std::invalid_argument(fmt::format("--gpu-buffers applies to --backend mpi; {} decides its buffers itself",
                                            backend));
  if (!backend_info.uses_devices() && arguments.gpus != 0)
    throw std::invalid_argument(fmt::format("-g/--ngpus applies to --backend cuda-peer or nccl, not {}", backend));
  options.iterations = arguments.iterations;
  options.small_iterations = arguments.small_iterations;
  options.small_max_bytes = parse_size(arguments.small_max_bytes);
  options.warmup_iterations = arguments.warmup;
  options.check = arguments.check == 1;
  options.op = op;
  options.average = static_cast<bench::Average>(arguments.average);
  options.segment_bytes = static_cast<std::size_t>(segment_bytes);
  options.register_buffers = arguments.local_register == 1;
  options.device_buffers = backend_info.uses_devices() || arguments.gpu_buffers == 1;
  options.timeout_seconds = arguments.timeout_seconds;
  options.fault = fault_from_environment();
  if (!arguments.converge.empty()) options.converge = bench::parse_converge(arguments.converge);
  options.show_ci = arguments.show_ci;
  // The schedule-based algorithms plus this backend's native baseline (mpi-native, nccl-native).
  const std::string native(native_allreduce_of(backend));
  std::vector<std::string> valid = allreduce_implementations();
  valid.erase(std::remove(valid.begin(), valid.end(), std::string(mpi_native)), valid.end());
  if (!native.empty()) valid.push_back(native);
  for (const BackendInfo& other : backends())
    if (!other.native_allreduce.empty() && other.native_allreduce != native && arguments.sweep.algorithms != "all" &&
        arguments.sweep.algorithms.find(other.native_allreduce) != std::string::npos)
      throw std::invalid_argument(fmt::format("'{}' needs --backend {} (run under mpiexec)", other.native_allreduce,
                                              other.name));
  options.algorithms = parse_name_list(arguments.sweep.algorithms, valid, {bench::auto_algorithm});
  options.tuning = tuning_for_auto(options.algorithms, arguments.tuning);
  options.baseline = arguments.baseline;
  if (!options.baseline.empty() &&
      std::find(options.algorithms.begin(), options.algorithms.end(), options.baseline) == options.algorithms.end())
    throw std::invalid_argument(fmt::format("--baseline '{}' is not one of the algorithms run ({}); name one of them",
                                            options.baseline, fmt::join(options.algorithms, ", ")));
  if (options.baseline.empty())
    options.baseline = !native.empty() && std::find(options.algorithms.begin(), options.algorithms.end(), native) !=
                                              options.algorithms.end()
                           ? native
                           : options.algorithms.front();
  return options;
}

// Rank 0 measures memcpy while the other ranks sleep (they would otherwise spin in a wait and
// take the cores the copy needs), then releases them. Returns the figure on rank 0, 0 elsewhere.
double measure_memcpy_alone(Communicator& comm, const bench::BenchOptions& options) {
  const auto deadline = Clock::now() + timeout_from_seconds(options.timeout_seconds);
  std::byte token{1};
  if (comm.rank() != 0) {
    RequestPtr release = comm.post_recv({&token, 1}, 0, memcpy_release_tag);
    while (!release->test()) {
      if (Clock::now() > deadline) release->wait(deadline, "memcpy measurement (waiting for rank 0)");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return 0.0;
  }
  const double gbps = report::measure_memcpy_gbps(std::size_t{64} << 20, 5);
  std::vector<RequestPtr> releases;
  for (int peer = 1; peer < comm.size(); ++peer) releases.push_back(comm.post_send({&token, 1}, peer, memcpy_release_tag));
  for (RequestPtr& release : releases) release->wait(deadline, "memcpy measurement (releasing ranks)");
  return gbps;
}

// The trace's types and ops as the report's config has them: one name each, or "all" with the list.
nlohmann::json trace_types_and_ops(const bench::TypeOpList& list) {
  nlohmann::json names = {{"datatype", list.all_types ? "all" : name_of(list.types.front())},
                          {"op", list.all_ops ? "all" : name_of(list.ops.front())}};
  if (list.all_types)
    for (const DataType type : list.types) names["datatypes"].push_back(name_of(type));
  if (list.all_ops)
    for (const ReduceOp op : list.ops) names["ops"].push_back(name_of(op));
  return names;
}

// Writes -J and --csv from the finished report (rank 0), saying where unless they go to standard output.
void write_other_formats(const BenchArguments& arguments, const nlohmann::json& report, int standard_output) {
  if (!arguments.nccl_json.empty()) {
    const std::string end_time = ringlab::report::nccl_tests_time(ringlab::report::utc_timestamp());
    io::write_json_file(arguments.nccl_json, ringlab::report::make_nccl_tests_json(
                                                       report, {end_time, backend_uses_devices(report.at("config").at("backend").get<std::string>())}), 1, standard_output);
    if (!io::is_standard_output(arguments.nccl_json))
      fmt::print("# nccl-tests JSON written to {}\n", arguments.nccl_json);
  }
  if (!arguments.csv.empty()) {
    io::write_output_file(arguments.csv, ringlab::report::report_csv(report), standard_output);
    if (!io::is_standard_output(arguments.csv)) fmt::print("# CSV written to {}\n", arguments.csv);
  }
}

int run_bench(Communicator& comm, const BenchArguments& arguments, const std::vector<BenchCase>& cases,
              const bench::TypeOpList& type_ops, std::vector<std::string> notes, const std::string& backend,
              int standard_output) {
  const bench::BenchOptions& options = cases.front().options;
  const double timeout = options.timeout_seconds;
  during_setup("configuration agreement check of the bench options", timeout, [&] {
    check_ranks_agree(comm, bench::describe(options), timeout_from_seconds(timeout), "the bench options");
  });
  const bool leader = comm.rank() == 0;
  bench::RunDescription run{arguments.command_line, backend, comm.transport_description(), comm.size(),
                            report::describe_machine(!find_backend(backend).ranks_are_threads() ? std::optional(built_mpi_library_name()) : std::nullopt),
                            std::move(notes), std::nullopt, {}, {}, {}};
#ifdef RINGLAB_HAVE_CUDA
  if (leader) {
    cuda::GpuDescription gpus = cuda::describe_gpus();
    run.machine.cuda_version = std::move(gpus.cuda_version);
    run.machine.nccl_version = std::move(gpus.nccl_version);
    run.machine.gpus = std::move(gpus.gpus);
  }
#endif
  const std::vector<report::RankCpus> rank_cpus = during_setup("exchanging the ranks' CPUs", timeout, [&] {
    return bench::gather_rank_cpus(comm, Clock::now() + timeout_from_seconds(timeout));
  });
  run.rank_cpus = report::cpu_lists(rank_cpus);
  run.placement = report::describe_placement(rank_cpus);
  if (leader) run.verdict = report::judge_placement(rank_cpus);
  run.machine.memcpy_gbps = during_setup("the memcpy measurement, ranks other than 0 waiting for it", timeout,
                                         [&] { return measure_memcpy_alone(comm, options); });
  // Buffers for the largest size of any case (sizes are rounded down to each type's element size).
  const BenchCase& largest = *std::max_element(cases.begin(), cases.end(), [](const BenchCase& a, const BenchCase& b) {
    return a.sizes.back().bytes < b.sizes.back().bytes;
  });
  bench::SweepBuffers buffers = during_setup("allocating the buffers (registering them with -R 1)", timeout, [&] {
    return bench::allocate_sweep_buffers(comm, largest.options, largest.sizes);
  });
  run.buffers = buffers.description();
  const bool nccl_tests_table = arguments.format == "nccl-tests";
  const bool print_table = leader && !options.quiet;
  if (print_table && nccl_tests_table) {
    fmt::print("{}", report::nccl_tests_preamble(bench::merge_type_op_reports({bench::make_report(run, options, {}, false)}, type_ops),
                                             backend_uses_devices(backend)));
    std::fflush(stdout);
  } else if (print_table) {
    bench::print_header(stdout, run, options);
  }
  SweepProgressLine progress(leader && !options.quiet && isatty(STDERR_FILENO) == 1);
  const bool write_json = leader && !arguments.sweep.json.empty();
  const bool json_to_file = !io::is_standard_output(arguments.sweep.json);
  MeasuredTrace trace;
  const BenchCase* current_case = &cases.front();
  bench::TraceOneCall trace_one_call;
  if (!arguments.trace.empty())
    trace_one_call = [&](const std::string& algorithm, const bench::SweepSize& size, bool in_place,
                         const std::function<void(const ExecuteOptions&)>& call, const ExecuteOptions& execute) {
      const std::string_view placement = name_of(placement_of(in_place));
      const std::string_view type = name_of(current_case->options.type);
      const std::string_view op = name_of(current_case->options.op);
      // One (type, op): the short name, as the simulator's trace of the same run has it.
      trace.trace_call(comm, execute, call,
                       cases.size() > 1 ? trace_call_name(algorithm, size.bytes, placement, type, op)
                                        : trace_call_name(algorithm, size.bytes, placement),
                       {{"source", "measured"}, {"algorithm", algorithm}, {"bytes", size.bytes},
                        {"placement", placement}, {"datatype", type}, {"op", op}, {"ranks", comm.size()}});
    };
  std::vector<nlohmann::json> finished;   // rank 0: the report of each (type, op) measured
  std::vector<report::ResultRow> all_rows;  // rank 0: every row of every case
  for (const BenchCase& bench_case : cases) {
    current_case = &bench_case;
    std::vector<report::ResultRow> measured;  // rank 0: every size of this case measured so far
    const auto rows = bench::run_sweep(
        comm, bench_case.options, bench_case.sizes, buffers,
        [&](const std::vector<report::ResultRow>& size_rows) {
          progress.clear();
          // The nccl-tests tables are one per algorithm, so they come when every size is measured.
          if (print_table && !nccl_tests_table) bench::print_size_rows(stdout, size_rows, bench_case.options);
          // Nothing lost: after each size the report holds everything measured so far, marked
          // incomplete, replaced atomically, so a crash leaves a whole file, never a torn one.
          if (!write_json || !json_to_file) return;
          measured.insert(measured.end(), size_rows.begin(), size_rows.end());
          std::vector<nlohmann::json> parts = finished;
          parts.push_back(bench::make_report(run, bench_case.options, measured, false));
          io::write_json_file(arguments.sweep.json, bench::merge_type_op_reports(parts, type_ops));
        },
        [&](const bench::SweepProgress& step) { progress.show(step); }, trace_one_call);
    progress.clear();
    if (!leader) continue;
    finished.push_back(bench::make_report(run, bench_case.options, rows, true));
    all_rows.insert(all_rows.end(), rows.begin(), rows.end());
  }
  if (!leader) return 0;
  if (!arguments.trace.empty()) {
    nlohmann::json context = {{"command", arguments.command_line}, {"backend", backend}, {"ranks", comm.size()},
                              {"segment_bytes", options.segment_bytes},
                              {"clock", ranks_share_one_clock(comm) ? "one clock (threads of one process)"
                                                                    : "each rank's offset to rank 0 from ping-pongs"}};
    context.update(trace_types_and_ops(type_ops));
    io::write_json_file(arguments.trace, trace.document(context), 1, standard_output);
    if (!io::is_standard_output(arguments.trace)) fmt::print("# trace written to {}\n", arguments.trace);
  }
  const nlohmann::json report = bench::merge_type_op_reports(finished, type_ops);
  if (nccl_tests_table && print_table)
    fmt::print("{}", ringlab::report::nccl_tests_text(report));
  else
    bench::print_footer(stdout, all_rows, options);
  if (write_json) {
    io::write_json_file(arguments.sweep.json, report, 1, standard_output);
    if (json_to_file) fmt::print("# report written to {}\n", arguments.sweep.json);
  }
  write_other_formats(arguments, report, standard_output);
  const bool all_correct =
      std::all_of(all_rows.begin(), all_rows.end(), [](const report::ResultRow& row) { return row.wrong <= 0; });
  return all_correct ? 0 : 1;
}

}  // namespace

CommandRunner add_bench_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<BenchArguments>();
  arguments->command_line = command_line;
  CLI::App* command = app.add_subcommand(
      "bench", "All-reduce microbenchmark across sizes and algorithms, nccl-tests style (mpiexec -n N for the mpi "
               "backend). Exits 1 if any element is wrong.");
  add_sweep_options(*command, arguments->sweep);
  command->add_option("-n,--iters", arguments->iterations, "Timed iterations per size")->capture_default_str();
  command->add_option("--iters-small", arguments->small_iterations,
                      "Timed iterations for sizes up to --small-maxbytes (0: -n for every size)")
      ->capture_default_str();
  command->add_option("--small-maxbytes", arguments->small_max_bytes, "Largest size --iters-small applies to")
      ->capture_default_str();
  command->add_option("-w,--warmup_iters", arguments->warmup, "Warm-up iterations")->capture_default_str();
  command->add_option("-c,--check", arguments->check, "Check results (1) or not (0)")->capture_default_str();
  command->add_option("-o,--op", arguments->op, "sum|prod|min|max|avg, or all (each in turn)")->capture_default_str();
  command->add_option("-a,--average", arguments->average, "Time over ranks: 0 rank 0, 1 mean, 2 min, 3 max")
      ->capture_default_str();
  command->add_option("--baseline", arguments->baseline, "Reference for ratios (default mpi-native, else the first)");
  command->add_option("--segment-bytes", arguments->segment_bytes, "Segment size, K/M/G suffixes (0 = whole transfers)")
      ->capture_default_str();
  command->add_option("--tuning", arguments->tuning,
                      "Selection table (ringlab.tuning/1, from `ringlab tune`) that --algo auto runs from: per size, "
                      "the algorithm and segment size it names (the table column shows auto:NAME)");
  command->add_option("-R,--local_register", arguments->local_register,
                      "1: buffers the backend registers (mpi: shared memory peers read sends from, one copy); 0: heap")
      ->capture_default_str();
  command->add_option("--backend", arguments->backend, "auto | mpi | threads | cuda-peer | nccl (under mpiexec)")->capture_default_str();
  command->add_option("--ranks", arguments->ranks, "Ranks for the threads and cuda-peer backends")->capture_default_str();
  command->add_option("--ranks-per-gpu", arguments->ranks_per_gpu,
                      "cuda-peer: virtual ranks sharing each GPU (0: one rank per GPU)")
      ->capture_default_str();
  command->add_option("-g,--ngpus", arguments->gpus,
                      "cuda-peer: GPUs to use, the first ones (0: as many as needed); nccl: GPUs per process (1)")
      ->capture_default_str();
  command->add_option("--gpu-buffers", arguments->gpu_buffers,
                      "mpi: 1 = buffers on the GPU (CUDA-aware MPI, or staged through pinned memory)")
      ->capture_default_str();
  command->add_option("--format", arguments->format,
                      "Table on standard output: ringlab (as measured, every algorithm per size) or nccl-tests "
                      "(all_reduce_perf's columns, one table per algorithm, at the end)")
      ->check(CLI::IsMember({"ringlab", "nccl-tests"}))
      ->capture_default_str();
  command->add_option("-J,--nccl-json", arguments->nccl_json,
                      "Write nccl-tests' JSON output (as all_reduce_perf -J) to this file (- = standard output)")
      ->check(output_path());
  command->add_option("--csv", arguments->csv, "Write one CSV row per result, every statistic a column (- = standard output)")
      ->check(output_path());
  command->add_option("--converge", arguments->converge,
                      "REL[,MAX_SECONDS]: time each size, algorithm and placement until the median's 95 % interval "
                      "is within +-REL of it (0 < REL < 1), or MAX_SECONDS (default 10) are spent; -n calls first");
  command->add_flag("--ci", arguments->show_ci, "Add the median and its 95 % interval to the table");
  add_timeout_option(*command, arguments->timeout_seconds);
  command->add_option("--trace", arguments->trace,
                      "Write a Trace Event Format (Perfetto) timeline: per rank and step, send/receive/reduce spans "
                      "of one extra call per size, algorithm and placement after the timed ones")
      ->check(output_path());
  return [arguments] {
    // Everything that can be refused is refused here, before any rank starts.
    const std::string backend = resolve_backend(arguments->backend);
    const bench::TypeOpList type_ops = bench::parse_type_op_list(arguments->sweep.type, arguments->op);
    const bench::BenchOptions options = to_options(*arguments, backend, type_ops.types.front(), type_ops.ops.front());
    std::vector<std::string> notes;
    std::vector<BenchCase> cases;
    for (const auto& [type, op] : bench::type_op_cases(type_ops)) {
      BenchCase bench_case{options, {}};
      bench_case.options.type = type;
      bench_case.options.op = op;
      std::vector<std::string> case_notes;
      bench_case.sizes = bench::sweep_sizes(bench_case.options, &case_notes);
      for (std::string& note : case_notes)
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
      cases.push_back(std::move(bench_case));
    }
    if (type_ops.all_types || type_ops.all_ops)
      notes.push_back(fmt::format("-d {} -o {}: {} (type, op) sweeps in turn; each row says its type and op (the sizes "
                                  "line above names the first)",
                                  arguments->sweep.type, arguments->op, cases.size()));
    const BackendInfo& backend_info = find_backend(backend);
    const int ranks_here = backend_info.ranks_are_threads() ? arguments->ranks : 1;
    bench::check_memory(options, ranks_here, report::available_memory_bytes());
    if (backend_info.ranks_are_threads() && !backend_info.uses_devices())  // the same 4 buffers a rank, with the threads' mailboxes and programs
      check_threads_job(arguments->ranks, 4.0 * static_cast<double>(options.max_bytes) * arguments->ranks,
                         report::available_memory_bytes());
    check_output_option(arguments->sweep.json, arguments->sweep.force, "--json");
    check_output_option(arguments->nccl_json, arguments->sweep.force, "-J/--nccl-json");
    check_output_option(arguments->csv, arguments->sweep.force, "--csv");
    check_output_option(arguments->trace, arguments->sweep.force, "--trace");
    const io::StandardOutputForData data_output(to_standard_output(
        {{"--json", &arguments->sweep.json}, {"-J/--nccl-json", &arguments->nccl_json}, {"--csv", &arguments->csv},
                            {"--trace", &arguments->trace}}));
    return run_ranks(backend,
                     DeviceLayout{arguments->ranks, arguments->ranks_per_gpu, arguments->gpus, arguments->gpu_buffers == 1},
                     JobSetup{checked_timeout(options.timeout_seconds), options.fault},
                     [&](Communicator& comm) {
      return run_bench(comm, *arguments, cases, type_ops, notes, backend, data_output.descriptor());
    });
  };
}

}  // namespace ringlab::cli
