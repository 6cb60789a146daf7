// `ringlab train` (the training harness of docs/training.md on the threads or mpi backend) and
// `ringlab make-cifar` / `ringlab make-miniimagenet` (synthetic data in the CIFAR-10 binary format
// and in the mini-ImageNet layout of docs/training.md).
#include <fmt/format.h>

#include <optional>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/checked_option.hpp"
#include "collectives/selection_table.hpp"
#include "training_harness/cifar_io.hpp"
#include "training_harness/miniimagenet_io.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "cli/launch.hpp"
#include "io/output_file.hpp"
#include "report/machine_info.hpp"
#include "training_harness/train_report.hpp"
#include "training_harness/train_run.hpp"

namespace ringlab::cli {

namespace {

struct TrainArguments {
  std::string mode = "single";
  std::string model = "cifar-vgg";
  std::string data;
  std::string synthetic;  // empty: not given
  std::string bucket = "25M";
  std::string tuning;  // --tuning FILE: the table --algo auto runs from
  std::string backend = "auto";
  std::string compute = "cpu";
  int ranks = 1;
  int log_every = 1;
  double timeout_seconds = default_timeout_seconds;
  std::optional<FaultSpec> fault;  // test only: RINGLAB_FAULT
  std::string json;
  bool force = false;
  int standard_output = 1;  // where --json - goes (io::StandardOutputForData)
  training::TrainRunOptions run;
};

void print_header(const training::TrainRunContext& context, const training::TrainRunOptions& options,
                  const training::TrainRunResult& result) {
  const training::ParameterCounts& p = result.parameters;
  const double parameters = static_cast<double>(p.backbone + p.head);
  const double macs = p.backbone_macs_per_sample + p.head_macs_per_sample;
  fmt::print("# ringlab train: {}\n# host {} | {} | {} cores | backend {} | {} ranks | compute {}\n", context.command,
             context.machine.hostname, context.machine.cpu_model, context.machine.cores, context.backend,
             context.nranks, result.compute_name);
  fmt::print("# transport {}\n# model {}: backbone {} parameters ({:.1f} %), {:.3g} MAC/sample ({:.1f} %); "
             "head {} parameters, {:.3g} MAC/sample\n",
             context.transport, options.config.model.describe(), p.backbone, 100.0 * static_cast<double>(p.backbone) / parameters,
             p.backbone_macs_per_sample, 100.0 * p.backbone_macs_per_sample / macs, p.head, p.head_macs_per_sample);
  fmt::print("# mode {} | algorithm {} | global batch {} ({} per rank) | {} gradient buckets | data {}\n",
             training::name_of(options.config.mode), options.config.algorithm, options.config.global_batch,
             options.config.global_batch / context.nranks, result.gradient_buckets, result.data_description);
  std::fflush(stdout);
}

int run_on(Communicator& comm, const TrainArguments& arguments, const std::string& command_line,
           const std::string& backend) {
  const bool print = comm.rank() == 0;
  training::TrainRunContext context{command_line, backend, comm.transport_description(), comm.size(), {}};
  if (print) context.machine = report::describe_machine(built_mpi_library_name());
  training::TrainRunOptions run = arguments.run;  // this rank's copy, with its own fault injector
  FaultInjector fault(arguments.fault);
  run.config.execute.fault = &fault;
  const training::TrainRunResult result = training::run_training(
      comm, run,
      [&](const training::TrainRunResult& start) {
        if (print) print_header(context, arguments.run, start);
      },
      [&](const training::StepSummary& step) {
        if (!print || (step.step % arguments.log_every != 0 && step.step + 1 != arguments.run.steps)) return;
        fmt::print("{}\n", training::format_step_line(step, arguments.run.steps, arguments.run.config.global_batch));
        std::fflush(stdout);
      });
  if (!print) return 0;
  for (const SelectionChoice& choice : result.auto_choices)
    fmt::print("# auto: all-reduce of {} B ran {} (segment {} B)\n", choice.bytes, choice.algorithm, choice.segment_bytes);
  for (const training::CollectiveUse& use : result.collectives)
    if (use.calls_per_step > 0)
      fmt::print("# per step: {} x{:g}, {:.0f} B\n", use.name, use.calls_per_step, use.bytes_per_step);
  const training::StepSummary mean = training::mean_of_timed_steps(result);
  fmt::print("# mean of {} timed steps: {:.2f} ms per step (compute {:.2f}, comm {:.2f}, idle {:.2f}), {:.1f} img/s\n",
             mean.step, mean.iteration_seconds * 1e3, mean.compute_seconds * 1e3, mean.communication_seconds * 1e3,
             mean.idle_seconds * 1e3, arguments.run.config.global_batch / mean.iteration_seconds);
  if (!arguments.json.empty()) {
    io::write_json_file(arguments.json, training::make_train_report(context, arguments.run, result), 1,
                        arguments.standard_output);
    if (!io::is_standard_output(arguments.json)) fmt::print("# report written to {}\n", arguments.json);
  }
  return 0;
}

void add_train_options(CLI::App* command, TrainArguments& a) {
  training::TrainConfig& config = a.run.config;
  command->add_option("--mode", a.mode, "single | dp (data parallel) | hybrid (data-parallel backbone, "
                                        "model-parallel FC head)")->capture_default_str();
  command->add_option("--algo", config.algorithm, "Collective algorithm (hybrid needs reduce_scatter and allgather)")
      ->capture_default_str();
  command->add_option("--model", a.model, "cifar-vgg | mini-imagenet-vgg, with ,width=K ,fc=H")->capture_default_str();
  command->add_option("--data", a.data, "Folder with CIFAR-10 data_batch_*.bin files (cifar-vgg) or mini_imagenet_*.bin files (mini-imagenet-vgg)");
  command->add_option("--synthetic", a.synthetic, "Train on N synthetic records made in memory (K/M suffixes)");
  command->add_option("--data-seed", a.run.data_seed, "Seed of the synthetic data")->capture_default_str();
  command->add_option("--steps", a.run.steps, "SGD steps")->capture_default_str();
  command->add_option("--batch", config.global_batch, "Global batch (a multiple of the ranks)")->capture_default_str();
  command->add_option("--lr", config.sgd.learning_rate, "Learning rate")
      ->check(number_in({0, 10, "", true}))
      ->capture_default_str();
  command->add_option("--momentum", config.sgd.momentum, "SGD momentum")
      ->check(number_in({0, 1, "", false, true}))
      ->capture_default_str();
  command->add_option("--weight-decay", config.sgd.weight_decay, "L2 weight decay")->check(number_in({0, 1}))->capture_default_str();
  command->add_option("--seed", config.seed, "Seed of the initial weights")->capture_default_str();
  command->add_option("--tuning", a.tuning,
                      "Selection table (ringlab.tuning/1, from `ringlab tune`) that --algo auto runs from: each "
                      "all-reduce (gradient bucket) runs the algorithm it chooses for that size (dp mode)");
  command->add_option("--bucket-bytes", a.bucket, "Gradient bucket size for the all-reduce (K/M suffixes)")
      ->capture_default_str();
  command->add_option("--log-every", a.log_every, "Print every K-th step")->capture_default_str();
  command->add_option("--backend", a.backend, "auto (mpi under mpiexec, else threads) | mpi | threads")
      ->capture_default_str();
  command->add_option("--ranks", a.ranks, "Ranks for the threads backend")->capture_default_str();
  command->add_option("--compute", a.compute, "Where the layers run: cpu (OpenBLAS, the reference) | gpu (cuDNN and "
                                              "cuBLAS, operands staged per call; CUDA builds)")->capture_default_str();
  add_timeout_option(*command, a.timeout_seconds);
  command->add_option("--json", a.json, "Write a ringlab.train/1 report to this file (- = standard output)")
      ->check(output_path());
  command->add_flag("--force", a.force, "Overwrite an existing report");
}

}  // namespace

CommandRunner add_train_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<TrainArguments>();
  CLI::App* command = app.add_subcommand(
      "train", "Train a VGG-style image classifier with single, data-parallel or hybrid parallelism over ringlab's "
               "collectives (docs/training.md)");
  add_train_options(command, *arguments);
  return [arguments, command_line] {
    TrainArguments& a = *arguments;
    a.run.config.mode = training::parse_mode(a.mode);
    a.run.compute = training::parse_compute(a.compute);
    a.run.config.model = training::parse_model(a.model);
    a.run.data_folder = a.data;
    if (!a.synthetic.empty()) {
      const std::int64_t records = parse_size(a.synthetic);
      if (records < 1) throw std::invalid_argument(fmt::format("--synthetic {} must be at least 1 record", records));
      a.run.synthetic_records = static_cast<std::uint64_t>(records);
    }
    if (!a.data.empty() && a.run.synthetic_records > 0)
      throw std::invalid_argument("give either --data DIR or --synthetic N, not both");
    a.run.config.bucket_bytes = static_cast<std::size_t>(parse_size(a.bucket));
    if (std::optional<SelectionTable> table = tuning_for_auto({a.run.config.algorithm}, a.tuning))
      a.run.config.tuning = std::make_shared<const SelectionTable>(std::move(*table));
    if (a.log_every < 1) throw std::invalid_argument("--log-every must be at least 1");
    a.run.config.execute.timeout = checked_timeout(a.timeout_seconds);
    a.fault = fault_from_environment();
    check_output_option(a.json, a.force, "--json");
    const std::string backend = resolve_backend(a.backend);
    training::check_config(a.run.config, expected_ranks(backend, a.ranks));
    training::check_compute_available(a.run.compute);
    training::use_single_blas_thread();  // once per process, before any rank thread starts
    const io::StandardOutputForData data_output(to_standard_output({{"--json", &a.json}}));
    a.standard_output = data_output.descriptor();
    return run_ranks(backend, a.ranks, JobSetup{a.run.config.execute.timeout, a.fault},
                     [&](Communicator& comm) { return run_on(comm, a, command_line, backend); });
  };
}

namespace {

// What a make-* command writes: the images' geometry, the file names and the writer.
struct SyntheticFormat {
  int image_size = 0;
  int classes = 0;
  std::function<std::string(std::uint64_t)> file_name;  // of file index 0, 1, ...
  std::function<void(const std::filesystem::path&, const training::ImageSet&)> write;
};

// make-cifar and make-miniimagenet: --records synthetic records cut into --files files, written
// atomically, each file refused when it exists unless --force.
CommandRunner add_make_data_command(CLI::App& app, const std::string& name, const std::string& description,
                                    std::string default_records, SyntheticFormat format) {
  struct Arguments {
    std::string out;
    std::string records;
    int files = 5;
    std::uint64_t seed = 1;
    bool force = false;
  };
  auto arguments = std::make_shared<Arguments>();
  arguments->records = std::move(default_records);
  CLI::App* command = app.add_subcommand(name, description);
  command->add_option("--out", arguments->out, "Folder to write (created if missing)")->required();
  command->add_option("--records", arguments->records, "Records in all (K/M suffixes)")->capture_default_str();
  command->add_option("--files", arguments->files, "Number of files")->capture_default_str();
  command->add_option("--seed", arguments->seed, "Seed (the same as train --data-seed makes the same images)")
      ->capture_default_str();
  command->add_flag("--force", arguments->force, "Overwrite existing files");
  return [arguments, format = std::move(format)] {
    const std::uint64_t records = static_cast<std::uint64_t>(parse_size(arguments->records));
    if (records < 1) throw std::invalid_argument("--records must be at least 1");
    if (arguments->files < 1 || static_cast<std::uint64_t>(arguments->files) > records)
      throw std::invalid_argument(fmt::format("--files must be between 1 and --records ({})", records));
    if (arguments->out.empty()) throw std::invalid_argument("--out: the path is empty; give a folder");
    std::error_code not_made;
    if (!std::filesystem::create_directories(arguments->out, not_made) && !std::filesystem::is_directory(arguments->out))
      throw std::invalid_argument(fmt::format("--out '{}' is not a folder and cannot be made one{}", arguments->out,
                                              not_made ? ": " + not_made.message() : ""));
    const auto files = static_cast<std::uint64_t>(arguments->files);
    const auto path_of = [&](std::uint64_t f) { return (std::filesystem::path(arguments->out) / format.file_name(f)).string(); };
    for (std::uint64_t f = 0; f < files; ++f)  // every file checked before the first is written
      io::check_output_path(path_of(f), arguments->force, "--out file", false);
    for (std::uint64_t f = 0; f < files; ++f) {
      const std::string path = path_of(f);
      std::vector<std::uint64_t> indices;
      for (std::uint64_t i = records * f / files; i < records * (f + 1) / files; ++i) indices.push_back(i);
      format.write(path, training::make_synthetic(indices, format.image_size, format.classes, arguments->seed));
      fmt::print("{}: {} records\n", path, indices.size());
    }
    return 0;
  };
}

}  // namespace

CommandRunner add_make_cifar_command(CLI::App& app) {
  return add_make_data_command(
      app, "make-cifar", "Write synthetic images with learnable classes in the CIFAR-10 binary format (data_batch_K.bin)",
      "10000",
      {training::cifar_image_size, training::cifar_classes,
       [](std::uint64_t f) { return fmt::format("data_batch_{}.bin", f + 1); }, training::write_cifar_file});
}

CommandRunner add_make_mini_imagenet_command(CLI::App& app) {
  return add_make_data_command(
      app, "make-miniimagenet",
      "Write synthetic 84x84x3 images of 100 learnable classes in the mini-ImageNet binary layout of "
      "docs/training.md (mini_imagenet_KKKK.bin)",
      "6000",
      {training::mini_imagenet_image_size, training::mini_imagenet_classes, training::mini_imagenet_file_name,
       training::write_mini_imagenet_file});
}

}  // namespace ringlab::cli
