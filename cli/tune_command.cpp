// `ringlab tune`: prices every algorithm (and segment size) on a topology at every rank count and
// size with one model and writes the selection table `bench --algo auto --tuning FILE` runs from
// (simulator/tuning.hpp; docs/bench.md, "Tuning").
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/src/bench_options.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/progress_line.hpp"
#include "cli/sweep_arguments.hpp"
#include "cli/time_limit.hpp"
#include "collectives/algorithms/algorithm.hpp"
#include "collectives/selection_table.hpp"
#include "io/output_file.hpp"
#include "report/utc_timestamp.hpp"
#include "simulator/predictor.hpp"
#include "simulator/tuning.hpp"
#include "simulator/type_op_gamma.hpp"
#include "topology/topology_io.hpp"

namespace ringlab::cli {

namespace {

struct TuneArguments {
  std::string topology;
  std::string ranks;  // empty: the topology's endpoint count
  SweepArguments sweep;  // -b/-e/-f/-i/-d/--algo and --json/--force/--quiet, read as bench and simulate read them
  std::string op = "sum";
  std::string model = "flow-level";
  std::string segment_bytes = "1M";
  std::optional<double> gamma_seconds_per_byte;
  double time_limit_seconds = default_time_limit_seconds;
  std::string command_line;
};

simulator::TuneRequest to_request(const TuneArguments& arguments, const Topology& topology) {
  simulator::TuneRequest request;
  request.model = std::string(simulator::find_model(arguments.model).name);
  request.rank_counts = arguments.ranks.empty() ? std::vector<int>{topology.num_endpoints()} : parse_rank_list(arguments.ranks);
  bench::BenchOptions sweep;  // the sizes exactly as bench sweeps them
  apply_sweep_arguments(arguments.sweep, sweep);
  request.type = sweep.type;
  request.op = parse_reduce_op(arguments.op);
  for (const bench::SweepSize& size : bench::sweep_sizes(sweep, nullptr)) request.sizes.push_back(size.bytes);
  std::vector<std::string> valid;
  for (const AlgorithmInfo& info : algorithms())
    if (supports(info, Collective::allreduce)) valid.emplace_back(info.name);
  request.algorithms = parse_name_list(arguments.sweep.algorithms, valid);
  request.segment_candidates = parse_segment_list(arguments.segment_bytes);
  return request;
}

void print_table(const SelectionTable& table) {
  fmt::print("#{:>6} {:>12} {:>20} {:>10} {:>14} {:>20} {:>8}\n", "ranks", "from (B)", "algorithm", "segment",
             "predicted (us)", "runner-up", "margin");
  for (const SelectionRule& rule : table.rules)
    fmt::print(" {:>6} {:>12} {:>20} {:>10} {:>14.2f} {:>20} {:>7.1f}%\n", rule.nranks, rule.min_bytes, rule.algorithm,
               rule.segment_bytes, rule.predicted_seconds * 1e6, rule.runner_up.empty() ? "-" : rule.runner_up,
               100 * rule.margin);
}

int run_tune(const TuneArguments& arguments, TimeLimit& time_limit) {
  const Topology topology = load_topology(arguments.topology);
  simulator::TuneRequest request = to_request(arguments, topology);
  const std::string& json = arguments.sweep.json;
  check_output_option(json, arguments.sweep.force, "--json");
  const io::StandardOutputForData data_output(to_standard_output({{"--json", &json}}));
  simulator::TypeOpPricing pricing(topology, arguments.gamma_seconds_per_byte, print_warning);
  const simulator::TypeOpPricing::Priced priced = pricing.at(request.type, request.op);
  request.gamma_seconds_per_byte = priced.gamma_seconds_per_byte;
  const bool table_on_stdout = !arguments.sweep.quiet && !io::is_standard_output(json);
  if (table_on_stdout)
    fmt::print("# ringlab tune: {}\n# model {} on topology {} | type {} | op {} | gamma {:g} s/B | {} algorithms x {} "
               "segment sizes\n",
               arguments.command_line, request.model, topology.name(), name_of(request.type), name_of(request.op),
               request.gamma_seconds_per_byte, request.algorithms.size(), request.segment_candidates.size());
  ProgressLine progress("tune", static_cast<double>(request.rank_counts.size() * request.sizes.size()),
                        static_cast<int>(request.rank_counts.size() * request.sizes.size()), 2, !arguments.sweep.quiet);
  SelectionTable table = simulator::tune_allreduce(priced.topology, request, [&](std::size_t, std::size_t) { progress.done(1); });
  table.source = {{"command", arguments.command_line},
                  {"created", report::utc_timestamp()},
                  {"topology", arguments.topology},
                  {"model", request.model},
                  {"datatype", name_of(request.type)},
                  {"op", name_of(request.op)},
                  {"gamma_seconds_per_byte", request.gamma_seconds_per_byte}};
  if (table_on_stdout) print_table(table);
  if (!json.empty()) {
    const auto writing = time_limit.hold_while_writing();
    io::write_json_file(json, to_json(table), 1, data_output.descriptor());
    if (table_on_stdout) fmt::print("# tuning table written to {}\n", json);
  }
  return 0;
}

}  // namespace

CommandRunner add_tune_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<TuneArguments>();
  arguments->command_line = command_line;
  CLI::App* command = app.add_subcommand(
      "tune", "Price every algorithm on a topology at each rank count and size and write the selection table "
              "(ringlab.tuning/1) that `bench --algo auto --tuning FILE` runs from");
  command->add_option("--topology", arguments->topology,
                      "Preset, JSON file or calibration (`ringlab calibrate --json`) to tune for")
      ->required();
  command->add_option("--ranks", arguments->ranks,
                      "Rank counts: N, A..B or a comma-separated list, each at most the topology's endpoints "
                      "(default: the endpoint count)");
  command->add_option("-b,--minbytes", arguments->sweep.min_bytes, "Smallest size (K/M/G suffixes)")->capture_default_str();
  command->add_option("-e,--maxbytes", arguments->sweep.max_bytes, "Largest size")->capture_default_str();
  command->add_option("-f,--stepfactor", arguments->sweep.step_factor, "Multiply the size by this (default 2)");
  command->add_option("-d,--datatype", arguments->sweep.type, "float32|float64|float16|bfloat16|int32|int64")
      ->capture_default_str();
  command->add_option("-o,--op", arguments->op, "sum|prod|min|max|avg")->capture_default_str();
  command->add_option("--algo", arguments->sweep.algorithms, "Comma-separated algorithms to choose from, or all")
      ->capture_default_str();
  command->add_option("--model", arguments->model, "flow-level or closed-form")->capture_default_str();
  command->add_option("--segment-bytes", arguments->segment_bytes,
                      "Segment sizes to choose from, comma-separated, K/M/G suffixes (flow-level model; the closed "
                      "form sends transfers whole and keeps the first)")
      ->capture_default_str();
  command->add_option("--gamma", arguments->gamma_seconds_per_byte,
                      "Reduction cost, seconds per byte (default: the topology file's for -d/-o)");
  command->add_option("--json", arguments->sweep.json, "Write the ringlab.tuning/1 table to this file (- = standard output)")
      ->check(output_path());
  command->add_flag("--force", arguments->sweep.force, "Overwrite an existing --json file");
  command->add_flag("--quiet", arguments->sweep.quiet, "No table, no progress line");
  add_time_limit_option(*command, arguments->time_limit_seconds);
  return [arguments] {
    TimeLimit time_limit("tune", arguments->time_limit_seconds);
    return run_tune(*arguments, time_limit);
  };
}

}  // namespace ringlab::cli
