// `ringlab verify`: prove schedules correct and print their steps, bytes and critical path.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <utility>

#include "collectives/algorithms/algorithm.hpp"
#include "cli/algorithm_options.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "collectives/schedule_equivalence.hpp"
#include "collectives/schedule_io.hpp"
#include "cli/time_limit.hpp"
#include "collectives/verify.hpp"

namespace ringlab::cli {

namespace {

struct VerifyArguments {
  std::string algorithms = "all";
  std::string ranks = "1..16";
  std::string collectives = "all";
  std::string schedule_file;
  std::vector<std::string> equivalent;  // two algorithm names or ringlab.schedule/1 files
  AlgorithmOptions options;
  bool quiet = false;
  double time_limit_seconds = default_time_limit_seconds;
};

// Prints one row; returns whether the schedule verified.
bool report(const Schedule& schedule, bool quiet) {
  const VerifyResult result = verify(schedule);
  // Unit costs: the printed coefficients are counts of alpha and multiples of n at beta and gamma.
  // A schedule that failed verification may not even be well formed, so it is not priced.
  const CriticalPath path = result.ok() ? critical_path(schedule, {1.0, 1e-3, 1e-6}, 1.0) : CriticalPath{};
  if (!quiet || !result.ok())
    fmt::print("{:<20} {:<15} {:>6} {:>6} {:>8} {:>10.4f}   {:>4}a + {:>7.4f}nb + {:>7.4f}ng   {}\n", schedule.algorithm,
               name_of(schedule.collective), schedule.nranks, result.steps, schedule.nchunks, result.max_sent_fraction,
               path.latency_terms, path.beta_bytes, path.gamma_bytes, result.ok() ? "ok" : "FAIL");
  for (const std::string& error : result.errors) fmt::print("    {}\n", error);
  if (result.error_count > static_cast<std::int64_t>(result.errors.size()))
    fmt::print("    ... {} violations in all\n", result.error_count);
  return result.ok();
}

// The user's --root and --shards, clamped into an N-rank job (verify walks many N).
AlgorithmOptions options_at(AlgorithmOptions options, int nranks) {
  if (options.root >= nranks) options.root = 0;
  if (options.shards > nranks) options.shards = nranks;
  return options;
}

// --equivalent's A or B: a schedule file (a path ending in .json, read once) or an algorithm,
// built at each N.
struct EquivalenceOperand {
  std::string name;
  std::optional<Schedule> from_file;
  explicit EquivalenceOperand(std::string given) : name(std::move(given)) {
    if (name.ends_with(".json")) from_file = read_schedule_file(name);
  }
  Schedule at(Collective collective, int nranks, const AlgorithmOptions& options) const {
    return from_file ? *from_file : make_schedule(name, collective, nranks, options_at(options, nranks));
  }
};

// `verify --equivalent A B`: one line per N (and the maps unless --quiet); 0 when every N is.
int run_equivalence(const VerifyArguments& arguments) {
  const EquivalenceOperand a_operand(arguments.equivalent[0]);
  const EquivalenceOperand b_operand(arguments.equivalent[1]);
  Collective collective = Collective::allreduce;
  if (arguments.collectives != "all") {
    if (arguments.collectives.find(',') != std::string::npos)
      throw std::invalid_argument("--equivalent compares one collective: give --collective one name");
    collective = parse_collective(arguments.collectives);
  }
  std::vector<int> rank_counts = parse_rank_list(arguments.ranks);
  for (const EquivalenceOperand* operand : {&a_operand, &b_operand})
    if (operand->from_file) rank_counts = {operand->from_file->nranks};
  int equivalent = 0;
  int different = 0;
  int undecided = 0;
  for (int nranks : rank_counts) {
    const Schedule a = a_operand.at(collective, nranks, arguments.options);
    const Schedule b = b_operand.at(collective, nranks, arguments.options);
    const EquivalenceResult result = find_equivalence(a, b);
    const std::string pair = fmt::format("A = {}, B = {}, N = {} ({})", a.algorithm, b.algorithm, nranks, name_of(collective));
    if (!result.equivalent) {
      ++(result.decided ? different : undecided);
      fmt::print("{}: {}: {}\n", pair, result.decided ? "different" : "undecided", result.difference);
      continue;
    }
    ++equivalent;
    fmt::print("{}: equivalent\n", pair);
    if (arguments.quiet) continue;
    std::string ranks;
    for (std::size_t rank = 0; rank < result.rank_map.size(); ++rank)
      ranks += fmt::format(" {}->{}", rank, result.rank_map[rank]);
    fmt::print("  ranks A->B:{}\n", ranks);
    std::string chunks;
    for (const BlockPair& block : result.block_map)
      chunks += fmt::format(" {}->{}", describe_chunks(block.a_chunks), describe_chunks(block.b_chunks));
    fmt::print("  chunks A->B (A has {}, B has {}):{}\n", a.nchunks, b.nchunks, chunks);
  }
  fmt::print("compared {} rank counts: {} equivalent, {} different, {} undecided\n", rank_counts.size(), equivalent,
             different, undecided);
  return different + undecided == 0 ? 0 : 1;
}

}  // namespace

CommandRunner add_verify_command(CLI::App& app) {
  auto arguments = std::make_shared<VerifyArguments>();
  CLI::App* command = app.add_subcommand(
      "verify", "Prove that schedules compute their collective; print steps, bytes sent per rank and the "
                "alpha-beta-gamma critical path. Exits 1 if any schedule fails.");
  command->add_option("--algo", arguments->algorithms, "Comma-separated algorithms, or all")->capture_default_str();
  command->add_option("--ranks", arguments->ranks, "Rank counts: N, A..B or a comma-separated list")
      ->capture_default_str();
  command->add_option("--collective", arguments->collectives, "Comma-separated collectives, or all")
      ->capture_default_str();
  add_algorithm_options(*command, arguments->options);
  command->add_option("--schedule", arguments->schedule_file, "Verify a ringlab.schedule/1 JSON file instead");
  command->add_option("--equivalent", arguments->equivalent,
                      "Decide whether two schedules (algorithm names, or ringlab.schedule/1 .json files) are the "
                      "same up to a relabelling of ranks and chunks, at each --ranks N; prints the maps or the "
                      "first difference. Exits 1 unless all are equivalent")
      ->expected(2);
  command->add_flag("--quiet", arguments->quiet, "Print only failures and the summary");
  add_time_limit_option(*command, arguments->time_limit_seconds);
  return [arguments] {
    const TimeLimit time_limit("verify", arguments->time_limit_seconds);
    if (!arguments->equivalent.empty()) return run_equivalence(*arguments);
    auto print_header = [] {
      fmt::print("{:<20} {:<15} {:>6} {:>6} {:>8} {:>10}   {}\n", "algorithm", "collective", "ranks", "steps",
                 "chunks", "sent/rank", "critical path (n = message bytes)        status");
    };
    std::int64_t checked = 0;
    std::int64_t failed = 0;
    if (!arguments->schedule_file.empty()) {
      const Schedule schedule = read_schedule_file(arguments->schedule_file);
      print_header();
      ++checked;
      failed += report(schedule, arguments->quiet) ? 0 : 1;
    } else {
      std::vector<std::string> collective_names;
      for (Collective collective : all_collectives) collective_names.emplace_back(name_of(collective));
      const auto names = parse_name_list(arguments->algorithms, algorithm_names());
      const auto collectives = parse_name_list(arguments->collectives, collective_names);
      const auto rank_counts = parse_rank_list(arguments->ranks);
      print_header();
      for (const std::string& name : names) {
        const AlgorithmInfo& info = find_algorithm(name);
        for (const std::string& collective_name : collectives) {
          const Collective collective = parse_collective(collective_name);
          if (!supports(info, collective)) continue;
          for (int nranks : rank_counts) {
            ++checked;
            failed += report(make_schedule(name, collective, nranks, options_at(arguments->options, nranks)),
                             arguments->quiet) ? 0 : 1;
          }
        }
      }
    }
    fmt::print("verified {} schedules: {} ok, {} failed\n", checked, checked - failed, failed);
    return failed == 0 ? 0 : 1;
  };
}

}  // namespace ringlab::cli
