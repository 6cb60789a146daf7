// `ringlab schedule`: print or export one algorithm's schedule.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "collectives/algorithms/algorithm.hpp"
#include "cli/algorithm_options.hpp"
#include "cli/commands.hpp"
#include "collectives/schedule_io.hpp"

namespace ringlab::cli {

namespace {
struct ScheduleArguments {
  std::string algorithm;
  int ranks = 0;
  std::string collective = "allreduce";
  AlgorithmOptions options;
  bool json = false;
};
}  // namespace

CommandRunner add_schedule_command(CLI::App& app) {
  auto arguments = std::make_shared<ScheduleArguments>();
  CLI::App* command = app.add_subcommand("schedule", "Print an algorithm's schedule, or export it as JSON");
  command->add_option("--algo", arguments->algorithm, "Algorithm: " + fmt::format("{}", fmt::join(algorithm_names(), ", ")))
      ->required();
  command->add_option("--ranks", arguments->ranks, "Number of ranks N (>= 1)")->required();
  command->add_option("--collective", arguments->collective, "allreduce | reduce_scatter | allgather | broadcast")
      ->capture_default_str();
  add_algorithm_options(*command, arguments->options);
  command->add_flag("--json", arguments->json, "Write the ringlab.schedule/1 JSON document instead of a listing");
  return [arguments] {
    const Schedule schedule = make_schedule(arguments->algorithm, parse_collective(arguments->collective),
                                            arguments->ranks, arguments->options);
    if (arguments->json)
      std::cout << to_json(schedule).dump() << '\n';
    else
      print_schedule(std::cout, schedule);
    return 0;
  };
}

}  // namespace ringlab::cli
