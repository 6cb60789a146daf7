// `ringlab tune`: prices every algorithm (and segment size) on a topology at every rank count and
// size with one model and writes the selection table `bench --algo auto --tuning FILE` runs from
// (simulator/tuning.hpp; docs/bench.md, "Tuning").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <climits>
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
#include "collectives/mpich_selection.hpp"
#include "collectives/selection_table.hpp"
#include "io/json_input.hpp"
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
  std::string mpich_json;  // MPICH's selection file (collectives/mpich_selection.hpp)
  std::string mpich_base;  // the MPICH tree it keeps for the other collectives
  bool algorithms_given = false;
  std::string command_line;
};

// --mpich-json chooses among MPICH's algorithms only: all three unless --algo names some.
std::vector<std::string> mpich_candidates(const std::vector<std::string>& requested, bool given) {
  if (!given) return mpich_allreduce_algorithms();
  for (const std::string& name : requested)
    if (!has_mpich_allreduce(name))
      throw std::invalid_argument(fmt::format("--mpich-json: MPICH has no all-reduce for '{}'; --algo may name {}", name,
                                              fmt::join(mpich_allreduce_algorithms(), ", ")));
  return requested;
}

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
  if (!arguments.mpich_json.empty()) {
    request.algorithms = mpich_candidates(request.algorithms, arguments.algorithms_given);
    if (!request.sizes.empty() && request.sizes.back() > INT_MAX)
      throw std::invalid_argument("--mpich-json: MPICH's selection file holds sizes below 2 GiB; give -e 1G or less");
  }
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
  const std::string& mpich_json = arguments.mpich_json;
  check_output_option(mpich_json, arguments.sweep.force, "--mpich-json");
  if (!arguments.mpich_base.empty() && mpich_json.empty())
    throw std::invalid_argument("--mpich-base is the tree --mpich-json keeps; give --mpich-json FILE too");
  const std::optional<nlohmann::ordered_json> mpich_base =
      arguments.mpich_base.empty() ? std::nullopt
                                   : std::optional(io::read_ordered_json_input(arguments.mpich_base, "MPICH base file"));
  const io::StandardOutputForData data_output(to_standard_output({{"--json", &json}, {"--mpich-json", &mpich_json}}));
  simulator::TypeOpPricing pricing(topology, arguments.gamma_seconds_per_byte, print_warning);
  const simulator::TypeOpPricing::Priced priced = pricing.at(request.type, request.op);
  request.gamma_seconds_per_byte = priced.gamma_seconds_per_byte;
  const bool table_on_stdout =
      !arguments.sweep.quiet && !io::is_standard_output(json) && !io::is_standard_output(mpich_json);
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
  const std::optional<nlohmann::ordered_json> mpich =  // built before any file is written: it may refuse the table
      mpich_json.empty() ? std::nullopt : std::optional(to_mpich_selection(table, mpich_base ? &*mpich_base : nullptr));
  const auto writing = time_limit.hold_while_writing();
  if (!json.empty()) {
    io::write_json_file(json, to_json(table), 1, data_output.descriptor());
    if (table_on_stdout) fmt::print("# tuning table written to {}\n", json);
  }
  if (mpich) {
    io::write_output_file(mpich_json, mpich->dump(1) + "\n", data_output.descriptor());
    if (table_on_stdout)
      fmt::print("# MPICH selection file written to {}: run with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE={} (one node: "
                 "also MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM=mpir)\n",
                 mpich_json, mpich_json);
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
  CLI::Option* algo = command->add_option("--algo", arguments->sweep.algorithms,
                                          "Comma-separated algorithms to choose from, or all (with --mpich-json: "
                                          "ring,recursive_doubling,halving_doubling)")
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
  command->add_option("--mpich-json", arguments->mpich_json,
                      "Also write MPICH's collective-selection file (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE) for the "
                      "table's all-reduce rules; chooses among MPICH's algorithms only")
      ->check(output_path());
  command->add_option("--mpich-base", arguments->mpich_base,
                      "MPICH's own selection tree (e.g. maint/tuning/coll/mpir/generic.json of its source) to keep for "
                      "every other collective (default: one general algorithm each)");
  command->add_flag("--force", arguments->sweep.force, "Overwrite existing --json / --mpich-json files");
  command->add_flag("--quiet", arguments->sweep.quiet, "No table, no progress line");
  add_time_limit_option(*command, arguments->time_limit_seconds);
  return [arguments, algo] {
    arguments->algorithms_given = algo->count() > 0;
    TimeLimit time_limit("tune", arguments->time_limit_seconds);
    return run_tune(*arguments, time_limit);
  };
}

}  // namespace ringlab::cli
