// `ringlab simulate`: predicts the bench table (and its ringlab.bench/1 report, kind "predicted")
// with the closed-form model on a topology (docs/simulator.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "algorithms/algorithm.hpp"
#include "cli_util.hpp"
#include "closed_form.hpp"
#include "commands.hpp"
#include "execute.hpp"
#include "machine_info.hpp"
#include "report.hpp"
#include "sweep.hpp"
#include "sweep_arguments.hpp"
#include "topology_io.hpp"

namespace ringlab::cli {

namespace {

struct SimulateArguments {
  SweepArguments sweep;
  std::string topology;
  int ranks = 0;  // 0: the topology's endpoint count
  std::optional<double> gamma_seconds_per_byte;  // empty: the topology's, else the default
  std::string command_line;
};

// The sweep options of a prediction: one "iteration", nothing checked (#wrong is N/A), whole
// transfers, op sum (the model prices every op alike). mpi-native has no schedule: "all" leaves it
// out, naming it adds a note.
bench::BenchOptions to_options(const SimulateArguments& arguments, std::vector<std::string>& notes) {
  bench::BenchOptions options;
  apply_sweep_arguments(arguments.sweep, options);
  options.iterations = 1;
  options.warmup_iterations = 0;
  options.check = false;
  options.segment_bytes = 0;
  std::vector<std::string> valid;
  for (const AlgorithmInfo& info : algorithms()) valid.emplace_back(info.name);
  std::vector<std::string> listed = valid;  // "all": the algorithms with a schedule
  if (arguments.sweep.algorithms != "all") {
    std::vector<std::string> known = valid;
    known.emplace_back(mpi_native);
    listed = parse_name_list(arguments.sweep.algorithms, known);
  }
  for (const std::string& name : listed) {
    if (std::find(valid.begin(), valid.end(), name) != valid.end())
      options.algorithms.push_back(name);
    else
      notes.push_back(fmt::format("{} is not simulated: it has no schedule (the MPI library picks its algorithm)", name));
  }
  if (options.algorithms.empty()) throw std::invalid_argument("--algo names no algorithm with a schedule to simulate");
  options.baseline = options.algorithms.front();
  return options;
}

int check_ranks(const SimulateArguments& arguments, const Topology& topology) {
  if (arguments.ranks == 0) return topology.num_endpoints();
  if (arguments.ranks != topology.num_endpoints())
    throw std::invalid_argument(fmt::format("--ranks {} does not match topology '{}', which has {} endpoints (ranks); "
                                            "omit --ranks or pick a topology of {} endpoints",
                                            arguments.ranks, topology.name(), topology.num_endpoints(), arguments.ranks));
  return arguments.ranks;
}

void print_simulate_header(const bench::RunDescription& run, const bench::BenchOptions& options, const Topology& topology) {
  fmt::print("# ringlab simulate: {}\n", run.command);
  fmt::print("# model {}: alpha-beta-gamma along each route, per-port, no contention | gamma {:g} s/B\n",
             run.model->name, run.model->gamma_seconds_per_byte);
  fmt::print("# topology {} | {} ranks | {} switches | {} links\n", topology.name(), run.nranks,
             topology.num_switches(), topology.num_links());
  fmt::print("# sizes {}..{} B | type {} | op {} | predicted: in-place = out-of-place, #wrong N/A\n",
             options.min_bytes, options.max_bytes, name_of(options.type), name_of(options.op));
  for (const std::string& note : run.notes) fmt::print("# note: {}\n", note);
  bench::print_column_titles(stdout);
}

bench::ResultRow predicted_row(const std::string& algorithm, const bench::SweepSize& size, double seconds,
                               bool in_place, int nranks) {
  bench::ResultRow row;
  row.algorithm = algorithm;
  row.size_bytes = size.bytes;
  row.count = size.count;
  row.in_place = in_place;
  const double us = seconds * 1e6;
  row.time = {us, us, us, us, us, 0.0};
  row.algbw_gbps = bench::algbw_gbps(size.bytes, seconds);
  row.busbw_gbps = bench::busbw_gbps(row.algbw_gbps, nranks);
  row.wrong = -1;
  return row;
}

int run_simulate(const SimulateArguments& arguments) {
  // Everything that can be refused is refused before the first prediction.
  const Topology topology = load_topology(arguments.topology);
  const int nranks = check_ranks(arguments, topology);
  std::vector<std::string> notes;
  const bench::BenchOptions options = to_options(arguments, notes);
  const std::vector<bench::SweepSize> sizes = bench::sweep_sizes(options, &notes);
  bench::check_output_path(arguments.sweep.json, arguments.sweep.force);
  simulator::ClosedFormModel model(topology, simulator::choose_gamma(topology, arguments.gamma_seconds_per_byte));
  std::vector<Schedule> schedules;
  for (const std::string& name : options.algorithms)
    schedules.push_back(make_schedule(name, Collective::allreduce, nranks, options.algorithm_options));

  bench::RunDescription run{arguments.command_line, "simulator",
                            fmt::format("closed-form model on topology {}", topology.name()), nranks,
                            bench::describe_machine(std::nullopt), std::move(notes),
                            bench::ModelDescription{"closed-form", arguments.topology, model.gamma_seconds_per_byte()}, {}};
  if (!options.quiet) print_simulate_header(run, options, topology);
  std::vector<bench::ResultRow> rows;
  for (const bench::SweepSize& size : sizes) {
    std::vector<bench::ResultRow> size_rows;
    for (std::size_t i = 0; i < schedules.size(); ++i) {
      const double seconds = model.predict(schedules[i], size.count, options.type).seconds;
      for (bool in_place : {false, true})
        size_rows.push_back(predicted_row(options.algorithms[i], size, seconds, in_place, nranks));
    }
    if (!options.quiet) bench::print_size_rows(stdout, size_rows, options);
    rows.insert(rows.end(), size_rows.begin(), size_rows.end());
  }
  if (!options.quiet) bench::print_footer(stdout, rows, options);
  if (!arguments.sweep.json.empty()) {
    bench::write_report(arguments.sweep.json, bench::make_report(run, options, rows, true));
    if (!options.quiet) fmt::print("# report written to {}\n", arguments.sweep.json);
  }
  return 0;
}

}  // namespace

CommandRunner add_simulate_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<SimulateArguments>();
  arguments->command_line = command_line;
  CLI::App* command = app.add_subcommand(
      "simulate", "Predict the bench table on a topology with the closed-form model (alpha-beta-gamma along each "
                  "route, no contention); --json writes a ringlab.bench/1 report of kind predicted.");
  command->add_option("--topology", arguments->topology, "Preset (see 'ringlab topology show --help') or JSON file")
      ->required();
  add_sweep_options(*command, arguments->sweep);
  command->add_option("--ranks", arguments->ranks, "Ranks; must equal the topology's endpoints (default: that count)");
  command->add_option("--gamma", arguments->gamma_seconds_per_byte,
                      fmt::format("Reduction cost, seconds per byte reduced (default: the topology file's "
                                  "gamma_seconds_per_byte, else {:g})",
                                  simulator::default_gamma_seconds_per_byte));
  return [arguments] { return run_simulate(*arguments); };
}

}  // namespace ringlab::cli
