// `ringlab compare`: measured bench reports against the models' predictions on a (calibrated)
// topology: a table of measured, predicted and relative error per row, then the median and p90
// |error| per algorithm and N over sizes >= --min-bytes (docs/compare.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "cli/algorithm_options.hpp"
#include "cli/cli_util.hpp"
#include "simulator/predictor.hpp"
#include "cli/commands.hpp"
#include "simulator/compare.hpp"
#include "io/output_file.hpp"
#include "simulator/flow_work.hpp"
#include "report/utc_timestamp.hpp"
#include "cli/time_limit.hpp"
#include "topology/topology_io.hpp"
#include "simulator/type_op_gamma.hpp"

namespace ringlab::cli {

namespace {

struct CompareArguments {
  std::vector<std::string> reports;
  std::string topology;
  std::string min_bytes = "64K";
  std::string nccl_algorithm = "ring";  // the schedule nccl-tests' rows are priced as
  std::optional<double> gamma_seconds_per_byte;
  std::string json;
  bool force = false;
  bool quiet = false;
  double time_limit_seconds = default_time_limit_seconds;
  std::string command_line;
};

void check_fits(const std::vector<simulator::MeasuredReport>& reports, const Topology& topology,
                const std::string& topology_text, std::vector<std::string>& notes) {
  for (const simulator::MeasuredReport& report : reports) {
    if (report.nranks > topology.num_endpoints())
      throw std::invalid_argument(fmt::format(
          "bench report '{}' has {} ranks but topology '{}' has only {} endpoints; pass a topology of at least {} "
          "endpoints (ringlab calibrate --endpoints {})",
          report.path, report.nranks, topology_text, topology.num_endpoints(), report.nranks, report.nranks));
    if (report.nranks < topology.num_endpoints())
      notes.push_back(fmt::format("'{}' has {} ranks on a topology of {} endpoints: ranks 0..{} are its first "
                                  "endpoints, priced as the topology describes them",
                                  report.path, report.nranks, topology.num_endpoints(), report.nranks - 1));
  }
}

// The CPUs each rank was measured on when the topology is a file `ringlab calibrate` wrote with
// them (its record's rank_cpus); empty otherwise (a preset, an older calibration).
std::vector<std::string> calibrated_rank_cpus(const std::string& topology_text) {
  std::error_code error_code;
  if (!std::filesystem::is_regular_file(topology_text, error_code)) return {};
  const nlohmann::json document = read_json_file(topology_text, "topology file");
  if (!document.is_object() || !document.contains("calibration")) return {};
  const nlohmann::json& record = document.at("calibration");
  if (!record.is_object() || !record.contains("rank_cpus") || !record.at("rank_cpus").is_array()) return {};
  std::vector<std::string> lists;
  for (const nlohmann::json& list : record.at("rank_cpus")) {
    if (!list.is_string()) return {};
    lists.push_back(list.get<std::string>());
  }
  return lists;
}

std::string placement_text(const std::vector<std::string>& rank_cpus) {
  std::string text;
  for (std::size_t rank = 0; rank < rank_cpus.size(); ++rank)
    text += fmt::format("{}{}:{}", rank == 0 ? "" : " ", rank, rank_cpus[rank]);
  return text;
}

// A sweep measured with its ranks on other CPUs than the calibration's is compared with a
// machine the topology does not describe (bound and unbound runs of one all-reduce can differ
// by a factor): said in a note, not refused.
void note_placements(const std::vector<simulator::MeasuredReport>& reports, const std::vector<std::string>& calibrated,
                     std::vector<std::string>& notes) {
  if (calibrated.empty()) return;
  for (const simulator::MeasuredReport& report : reports)
    if (!report.rank_cpus.empty() && report.rank_cpus != calibrated)
      notes.push_back(fmt::format(
          "'{}' ran with rank:CPUs {} but the topology was calibrated with {}: the model prices the calibration's "
          "placement; bind both runs alike (e.g. mpiexec -bind-to core for both)",
          report.path, placement_text(report.rank_cpus), placement_text(calibrated)));
}

void print_table(const simulator::Comparison& comparison) {
  fmt::print("{:>2} {:<20} {:>10} {:<13} {:>13}", "N", "algorithm", "bytes", "placement", "measured us");
  for (const std::string& model : comparison.models) fmt::print(" {:>14} {:>8}", model + " us", "error");
  fmt::print("\n");
  for (const simulator::ComparedRow& row : comparison.rows) {
    fmt::print("{:>2} {:<20} {:>10} {:<13} {:>13.2f}", row.nranks, row.measured.algorithm, row.measured.size_bytes,
               name_of(row.measured.placement), row.measured.measured_seconds * 1e6);
    for (std::size_t model = 0; model < comparison.models.size(); ++model)
      fmt::print(" {:>14.2f} {:>7.1f}%", row.predicted_seconds[model] * 1e6, row.relative_error[model] * 100);
    fmt::print("\n");
  }
}

void print_summary(const simulator::Comparison& comparison, std::int64_t min_bytes) {
  fmt::print("# |relative error| over sizes >= {} B (both placements)\n", min_bytes);
  fmt::print("{:>2} {:<20} {:<12} {:>5} {:>9} {:>9}\n", "N", "algorithm", "model", "rows", "median", "p90");
  for (const simulator::ErrorSummary& summary : comparison.summaries)
    fmt::print("{:>2} {:<20} {:<12} {:>5} {:>8.1f}% {:>8.1f}%\n", summary.nranks, summary.algorithm, summary.model,
               summary.rows, summary.median_abs_error * 100, summary.p90_abs_error * 100);
}

// Refuses reports whose flow-level predictions (one per row, in the report's segments) would start
// more than simulator::max_simulated_flows flows in all, before the first prediction.
void check_flow_work(const std::vector<simulator::MeasuredReport>& reports) {
  std::set<std::string> with_schedule;
  for (const AlgorithmInfo& info : algorithms()) with_schedule.emplace(info.name);
  double total = 0;
  int most_ranks = 0;
  for (const simulator::MeasuredReport& report : reports) {
    std::map<std::string, Schedule> schedules;  // rows without a schedule are left out by compare_reports
    for (const simulator::MeasuredRow& row : report.rows) {
      if (!with_schedule.contains(row.ran_algorithm())) continue;
      auto known = schedules.find(row.ran_algorithm());
      if (known == schedules.end())
        known = schedules
                    .emplace(row.ran_algorithm(), make_schedule(row.ran_algorithm(), Collective::allreduce, report.nranks,
                                                                report.algorithm_options))
                    .first;
      total += simulator::flow_level_flows(known->second, row.count, row.type,
                                           row.auto_segment_bytes.value_or(report.segment_bytes));
      most_ranks = std::max(most_ranks, report.nranks);
    }
  }
  if (total > simulator::max_simulated_flows)
    throw std::invalid_argument(fmt::format(
        "the flow-level model would simulate about {:.2g} flows for these reports' rows (up to {} ranks); the limit "
        "is {:.2g}: compare fewer or smaller reports (fewer ranks, sizes or algorithms)",
        total, most_ranks, simulator::max_simulated_flows));
}

int run_compare(const CompareArguments& arguments) {
  TimeLimit time_limit("compare", arguments.time_limit_seconds);
  // Everything that can be refused is refused before the first prediction.
  const std::int64_t min_bytes = parse_size(arguments.min_bytes);
  check_output_option(arguments.json, arguments.force, "--json");
  const io::StandardOutputForData data_output(to_standard_output({{"--json", &arguments.json}}));
  const Topology topology = load_topology(arguments.topology);
  std::vector<simulator::MeasuredReport> reports;
  const std::vector<std::string> names = algorithm_names();
  if (std::find(names.begin(), names.end(), arguments.nccl_algorithm) == names.end())
    throw std::invalid_argument(fmt::format("--nccl-algo {}: no such algorithm; valid: {}", arguments.nccl_algorithm,
                                            fmt::join(names, ", ")));
  for (const std::string& path : arguments.reports)
    reports.push_back(simulator::read_measured_report(path, arguments.nccl_algorithm));
  for (simulator::MeasuredReport& report : reports)  // NCCL lays out its rings and trees by node
    if (report.backend == "nccl") report.algorithm_options = with_topology_groups(report.algorithm_options, topology);
  std::vector<std::string> notes;
  check_fits(reports, topology, arguments.topology, notes);
  check_flow_work(reports);
  note_placements(reports, calibrated_rank_cpus(arguments.topology), notes);
  // Each row's reduction is priced with its (type, op)'s gamma: one topology and gamma per pair met.
  simulator::TypeOpPricing pricing(topology, arguments.gamma_seconds_per_byte, print_warning);

  // One entry per model (make_model), in the order the comparison reports them: the closed form,
  // then the flow-level model. Each model is built per (type, op) met; a model that cuts transfers
  // as the bench did, per segment size met in the reports, too.
  using TypeOp = std::pair<DataType, ReduceOp>;
  std::vector<simulator::Predictor> predictors;
  for (const std::string_view name : {"closed-form", "flow-level"}) {
    const simulator::ModelInfo& model = simulator::find_model(name);
    auto built = std::make_shared<std::map<std::pair<TypeOp, std::int64_t>, simulator::Predictor>>();
    predictors.push_back({std::string(model.name), [&model, built, &pricing](
                                                      const Schedule& schedule, std::int64_t count, DataType type,
                                                      ReduceOp op, std::int64_t segment_bytes,
                                                      simulator::Placement placement) {
                            const auto key = std::make_pair(TypeOp{type, op}, model.cuts_segments ? segment_bytes : 0);
                            auto found = built->find(key);
                            if (found == built->end()) {
                              const simulator::TypeOpPricing::Priced priced = pricing.at(type, op);
                              found = built
                                          ->try_emplace(key, simulator::make_model(model.name, priced.topology,
                                                                                   priced.gamma_seconds_per_byte,
                                                                                   key.second))
                                          .first;
                            }
                            return found->second.seconds(schedule, count, type, op, segment_bytes, placement);
                          }});
  }

  simulator::Comparison comparison = simulator::compare_reports(reports, predictors, min_bytes);
  comparison.notes.insert(comparison.notes.begin(), notes.begin(), notes.end());
  // The gamma of each (type, op) the rows have (its out-of-cache figure where the topology has a
  // gamma curve).
  std::vector<std::string> gamma_texts;
  nlohmann::json gammas = nlohmann::json::array();
  std::set<TypeOp> pairs;
  for (const simulator::ComparedRow& row : comparison.rows) pairs.emplace(row.measured.type, row.measured.op);
  for (const auto& [type, op] : pairs) {
    const double pair_gamma = pricing.at(type, op).gamma_seconds_per_byte;
    gamma_texts.push_back(fmt::format("{}/{} {:g} s/B", name_of(type), name_of(op), pair_gamma));
    gammas.push_back({{"type", name_of(type)}, {"op", name_of(op)}, {"gamma_seconds_per_byte", pair_gamma}});
  }
  const double gamma = pricing.at(simulator::reference_type, simulator::reference_op).gamma_seconds_per_byte;
  if (!arguments.quiet) {
    fmt::print("# ringlab compare: {}\n", arguments.command_line);
    fmt::print("# topology {} ({} endpoints) | gamma {} | measured = time_us.p50 (median call)\n", topology.name(),
               topology.num_endpoints(), gamma_texts.empty() ? fmt::format("{:g} s/B", gamma) : fmt::format("{}", fmt::join(gamma_texts, ", ")));
    for (const std::string& note : comparison.notes) fmt::print("# note: {}\n", note);
    print_table(comparison);
    print_summary(comparison, min_bytes);
  }
  if (!arguments.json.empty()) {
    const nlohmann::json context = {{"created", report::utc_timestamp()},
                                    {"command", arguments.command_line},
                                    {"reports", arguments.reports},
                                    {"topology", arguments.topology},
                                    {"topology_name", topology.name()},
                                    {"gamma_seconds_per_byte", gamma},
                                    {"gamma_by_type_op", std::move(gammas)},
                                    {"measured", "time_us.p50"}};
    const auto writing = time_limit.hold_while_writing();
    io::write_json_file(arguments.json, simulator::compare_to_json(comparison, min_bytes, context), 1,
                        data_output.descriptor());
    if (!arguments.quiet && !io::is_standard_output(arguments.json))
      fmt::print("# comparison written to {}\n", arguments.json);
  }
  return 0;
}

}  // namespace

CommandRunner add_compare_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<CompareArguments>();
  arguments->command_line = command_line;
  CLI::App* command = app.add_subcommand(
      "compare", "Compare measured bench reports with the models' predictions on a topology (e.g. one written by "
                 "ringlab calibrate): relative error per row, median and p90 per algorithm and N");
  command->add_option("reports", arguments->reports,
                      "ringlab.bench/1 reports of kind measured (ringlab bench --json), or nccl-tests all_reduce_perf "
                      "output: its text or its -J JSON")
      ->required();
  command->add_option("--nccl-algo", arguments->nccl_algorithm,
                      "The ringlab schedule nccl-tests' rows are priced as (NCCL's own choice is not in its output)")
      ->capture_default_str();
  command->add_option("--topology", arguments->topology, "Preset or ringlab.topology/1 file (ringlab calibrate --json)")
      ->required();
  command->add_option("--min-bytes", arguments->min_bytes, "Smallest size counted in the error summary")
      ->capture_default_str();
  command->add_option("--gamma", arguments->gamma_seconds_per_byte,
                      "Reduction cost, seconds per byte (default: the topology's gamma_seconds_per_byte, else 1e-10)");
  command->add_option("--json", arguments->json, "Write the ringlab.compare/1 document here (- = standard output)")
      ->check(output_path());
  command->add_flag("--force", arguments->force, "Overwrite an existing --json file");
  command->add_flag("-q,--quiet", arguments->quiet, "Print nothing but errors");
  add_time_limit_option(*command, arguments->time_limit_seconds);
  return [arguments] { return run_compare(*arguments); };
}

}  // namespace ringlab::cli
