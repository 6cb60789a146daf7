// `ringlab replay`: one training iteration of a real network (VGG-16, AlexNet, ResNet-50) replayed
// at full size: real buffers and real collectives on the threads or mpi backend, compute emulated
// from a per-layer profile; prints the compute / communication / idle split per algorithm and mode
// and the speed-up of hybrid over dp, and writes a ringlab.replay/1 report (docs/training.md).
#include <fmt/format.h>

#include <optional>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli/checked_option.hpp"
#include "collectives/selection_table.hpp"
#include "collectives/algorithms/algorithm.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "training_harness/compute.hpp"
#include "cli/job_options.hpp"
#include "cli/launch.hpp"
#include "io/output_file.hpp"
#include "training_harness/replay.hpp"
#include "training_harness/replay_profile_measure.hpp"
#include "report/machine_info.hpp"
#include "training_harness/timed_collectives.hpp"
#include "workload/workload_report.hpp"

namespace ringlab::cli {

namespace {

struct ReplayArguments {
  std::string workload;
  std::string mode = "both";
  std::string algorithms = "all";
  int global_batch = 32;
  int iterations = 5;
  std::string bucket = "25M";
  std::string tuning;  // --tuning FILE: the table --algo auto runs from
  std::shared_ptr<const SelectionTable> table;
  std::string profile = "measure";
  double device_tflops = 0;
  int profile_batch = 2;
  int profile_repetitions = 2;
  std::string save_profile;
  std::string backend = "auto";
  int ranks = 1;
  double timeout_seconds = default_timeout_seconds;
  std::optional<FaultSpec> fault;  // test only: RINGLAB_FAULT
  std::string json;
  bool force = false;
  int standard_output = 1;  // where an output given as - goes (io::StandardOutputForData)
};

std::vector<training::ReplayMode> parse_modes(const std::string& text) {
  if (text == "both") return {training::ReplayMode::dp, training::ReplayMode::hybrid};
  return {training::parse_replay_mode(text)};
}

// The profile every rank uses: from the file or the throughput (the same on every rank), or
// measured by rank 0 alone (the others wait) and sent to all.
training::ComputeProfile agree_on_profile(Communicator& comm, const ReplayArguments& a,
                                          const training::Workload& workload, ExecuteOptions options) {
  if (a.device_tflops > 0) return training::profile_from_throughput(workload, a.device_tflops);
  if (a.profile != "measure") return training::read_profile_file(a.profile, workload);
  training::ComputeProfile profile{workload.name, "", {}};
  if (comm.rank() == 0)
    profile = training::measure_profile(workload, *training::make_cpu_compute(), a.profile_batch, a.profile_repetitions);
  std::vector<double> times(2 * workload.layers.size(), 0.0);
  for (std::size_t i = 0; comm.rank() == 0 && i < workload.layers.size(); ++i) {
    times[2 * i] = profile.layers[i].forward_seconds_per_sample;
    times[2 * i + 1] = profile.layers[i].backward_seconds_per_sample;
  }
  training::TimedCollectives share(comm, "ring", false, options);
  share.allreduce_untimed(times, ReduceOp::sum);
  if (comm.rank() != 0) {
    profile.source = "measured by rank 0";
    for (std::size_t i = 0; i < workload.layers.size(); ++i)
      profile.layers.push_back({workload.layers[i].name, times[2 * i], times[2 * i + 1]});
  }
  return profile;
}

int replay_on(Communicator& comm, const ReplayArguments& a, const std::vector<std::string>& algorithms,
              const std::string& command_line, const std::string& backend) {
  const training::Workload workload = training::make_workload(a.workload);
  ExecuteOptions options;
  options.timeout = timeout_from_seconds(a.timeout_seconds);
  FaultInjector fault(a.fault);
  options.fault = &fault;
  const training::ComputeProfile profile = agree_on_profile(comm, a, workload, options);
  const bool print = comm.rank() == 0;
  training::WorkloadRunDescription run;
  run.command = command_line;
  run.nranks = comm.size();
  if (print) run.machine = report::describe_machine(built_mpi_library_name());
  run.execution = {{"backend", backend},
                   {"transport", comm.transport_description()},
                   {"compute_emulation", "sleep for each compute phase's profile time"}};
  run.workload = &workload;
  run.profile = &profile;
  run.global_batch = a.global_batch;
  run.iterations = a.iterations;
  run.bucket_bytes = static_cast<std::size_t>(parse_size(a.bucket));
  if (print) {
    training::print_workload_header(stdout, run);
    std::fflush(stdout);
  }
  std::vector<training::ModeResult> results;
  for (const std::string& algorithm : algorithms) {
    for (training::ReplayMode mode : parse_modes(a.mode)) {
      training::ModeResult result{algorithm, mode, true, "", {}, 0, 0, {}, {}, {}, {}, {}};
      try {
        training::check_algorithm(algorithm, mode == training::ReplayMode::hybrid, a.table != nullptr);
      } catch (const std::invalid_argument& error) {
        result.available = false;
        result.note = error.what();
        results.push_back(result);
        continue;
      }
      const training::IterationPlan plan =
          training::make_iteration_plan(workload, profile, mode, comm.size(), a.global_batch, run.bucket_bytes);
      const training::ReplayResult replayed =
          training::run_replay(comm, plan, algorithm, a.iterations, options, a.table.get());
      result.iterations = replayed.iterations;
      result.mean = training::mean_after_first(replayed.iterations);
      result.median_iteration_seconds = training::median_iteration_after_first(replayed.iterations);
      result.planned_compute_seconds = plan.compute_seconds();
      result.allreduce = replayed.allreduce;
      result.allgather = replayed.allgather;
      result.reduce_scatter = replayed.reduce_scatter;
      result.auto_choices = replayed.auto_choices;
      results.push_back(result);
      if (print) {
        for (const SelectionChoice& choice : result.auto_choices)
          fmt::print("# auto: all-reduce of {} B ran {} (segment {} B)\n", choice.bytes, choice.algorithm,
                     choice.segment_bytes);
        fmt::print("# done: {} {}: {:.2f} ms per iteration\n", algorithm, name_of(mode),
                   result.mean.iteration_seconds * 1e3);
        std::fflush(stdout);
      }
    }
  }
  if (!print) return 0;
  training::print_workload_table(stdout, results);
  if (!a.save_profile.empty()) {
    io::write_json_file(a.save_profile, training::to_json(profile), 1, a.standard_output);
    if (!io::is_standard_output(a.save_profile)) fmt::print("# profile written to {}\n", a.save_profile);
  }
  if (!a.json.empty()) {
    io::write_json_file(a.json, training::make_workload_report(run, results), 1, a.standard_output);
    if (!io::is_standard_output(a.json)) fmt::print("# report written to {}\n", a.json);
  }
  return 0;
}

}  // namespace

CommandRunner add_replay_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<ReplayArguments>();
  CLI::App* command = app.add_subcommand(
      "replay", "Replay one training iteration of a real network at full size: real buffers and collectives, compute "
                "emulated from a per-layer profile; dp vs hybrid per algorithm (docs/training.md)");
  ReplayArguments& options = *arguments;
  command->add_option("--workload", options.workload, "vgg16-cifar10 | vgg16-miniimagenet | vgg16-imagenet | alexnet | resnet50")
      ->required();
  command->add_option("--mode", options.mode, "dp | hybrid | both")->capture_default_str();
  command->add_option("--algo", options.algorithms, "Algorithm, comma list, or all (mpi-native: dp under mpiexec)")
      ->capture_default_str();
  command->add_option("--tuning", options.tuning,
                      "Selection table (ringlab.tuning/1, from `ringlab tune`) that --algo auto runs from, per "
                      "all-reduce size (dp mode)");
  command->add_option("--batch", options.global_batch, "Global batch (a multiple of the ranks)")->capture_default_str();
  command->add_option("--iterations", options.iterations, "Iterations per algorithm and mode (the first is not averaged)")
      ->capture_default_str();
  command->add_option("--bucket-bytes", options.bucket, "Gradient bucket size (K/M suffixes)")->capture_default_str();
  command->add_option("--profile", options.profile, "measure (CPU layers on this machine) or a ringlab.profile/1 FILE.json")
      ->capture_default_str();
  command->add_option("--device-tflops", options.device_tflops,
                      "Instead of --profile: compute from each layer's FLOPs at this assumed TFLOP/s")
      ->check(number_in({0, 1e6, "TFLOP/s", true}));
  command->add_option("--profile-batch", options.profile_batch, "Samples per layer when measuring")->capture_default_str();
  command->add_option("--save-profile", options.save_profile,
                      "Write the profile used as a ringlab.profile/1 file (- = standard output)")
      ->check(output_path());
  command->add_option("--backend", options.backend, "auto (mpi under mpiexec, else threads) | mpi | threads")
      ->capture_default_str();
  command->add_option("--ranks", options.ranks, "Ranks for the threads backend")->capture_default_str();
  add_timeout_option(*command, options.timeout_seconds);
  command->add_option("--json", options.json, "Write a ringlab.replay/1 report to this file (- = standard output)")
      ->check(output_path());
  command->add_flag("--force", options.force, "Overwrite existing output files");
  return [arguments, command_line] {
    ReplayArguments& a = *arguments;
    // Everything that can be refused is refused before any rank starts.
    const training::Workload workload = training::make_workload(a.workload);
    const std::vector<training::ReplayMode> modes = parse_modes(a.mode);
    std::vector<std::string> known = algorithm_names();
    known.emplace_back(mpi_native);
    known.emplace_back(training::auto_algorithm_name);
    std::vector<std::string> algorithms = parse_name_list(a.algorithms, known);
    if (a.algorithms == "all") std::erase_if(algorithms, [](const std::string& name) {
      return name == mpi_native || name == training::auto_algorithm_name;  // only when named
    });
    if (std::optional<SelectionTable> table = tuning_for_auto(algorithms, a.tuning))
      a.table = std::make_shared<const SelectionTable>(std::move(*table));
    if (a.iterations < 1) throw std::invalid_argument("--iterations must be at least 1");
    checked_timeout(a.timeout_seconds);
    a.fault = fault_from_environment();
    if (a.device_tflops < 0) throw std::invalid_argument("--device-tflops must be positive");
    if (a.device_tflops > 0 && a.profile != "measure")
      throw std::invalid_argument("give either --profile FILE or --device-tflops X, not both");
    if (a.device_tflops > 0) training::profile_from_throughput(workload, a.device_tflops);
    else if (a.profile == "measure") training::check_measurable(workload);
    else training::read_profile_file(a.profile, workload);
    check_output_option(a.json, a.force, "--json");
    check_output_option(a.save_profile, a.force, "--save-profile");
    const std::string backend = resolve_backend(a.backend);
    const int ranks = expected_ranks(backend, a.ranks);
    for (training::ReplayMode mode : modes)  // checks the batch and the head once, for the message
      training::make_iteration_plan(workload, training::profile_from_throughput(workload, 1), mode, ranks,
                                    a.global_batch, static_cast<std::size_t>(parse_size(a.bucket)));
    training::use_single_blas_thread();
    const io::StandardOutputForData data_output(
        to_standard_output({{"--json", &a.json}, {"--save-profile", &a.save_profile}}));
    a.standard_output = data_output.descriptor();
    return run_ranks(backend, a.ranks, JobSetup{checked_timeout(a.timeout_seconds), a.fault},
                     [&](Communicator& comm) { return replay_on(comm, a, algorithms, command_line, backend); });
  };
}

}  // namespace ringlab::cli
