#include "cli/sweep_arguments.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cli/algorithm_options.hpp"
#include "cli/cli_util.hpp"
#include "collectives/datatype.hpp"

namespace ringlab::cli {

void add_sweep_options(CLI::App& command, SweepArguments& arguments) {
  command.add_option("-b,--minbytes", arguments.min_bytes, "Smallest size (K/M/G suffixes)")->capture_default_str();
  command.add_option("-e,--maxbytes", arguments.max_bytes, "Largest size")->capture_default_str();
  command.add_option("-f,--stepfactor", arguments.step_factor, "Multiply the size by this (default 2)");
  command.add_option("-i,--stepbytes", arguments.step_bytes, "Add this many bytes instead of multiplying");
  command.add_option("-d,--datatype", arguments.type, "float32|float64|float16|bfloat16|int32|int64 (bench: or all, each in turn)")
      ->capture_default_str();
  command.add_option("--algo", arguments.algorithms, "Comma-separated implementations, or all")->capture_default_str();
  add_algorithm_options(command, arguments.algorithm_options);
  command.add_option("--json", arguments.json, "Write a ringlab.bench/1 report to this file (- = standard output)")
      ->check(output_path());
  command.add_flag("--force", arguments.force, "Overwrite existing output files (--json; bench: -J, --csv too)");
  command.add_flag("--quiet", arguments.quiet, "No table, no progress line");
}

void apply_sweep_arguments(const SweepArguments& arguments, bench::BenchOptions& options) {
  options.min_bytes = parse_size(arguments.min_bytes);
  options.max_bytes = parse_size(arguments.max_bytes);
  // -f and -i are each refused when they cannot make a sweep (a factor below 2, a step below 1
  // byte), and together, since only one of them can say how the sizes grow.
  if (arguments.step_factor && !arguments.step_bytes.empty())
    throw std::invalid_argument("-f/--stepfactor and -i/--stepbytes are both given; give one of them");
  if (!arguments.step_bytes.empty()) {
    options.step_bytes = parse_size(arguments.step_bytes);
    if (options.step_bytes < 1)
      throw std::invalid_argument(
          fmt::format("-i/--stepbytes {} must be at least 1 byte; e.g. -i 1K", options.step_bytes));
  }
  if (arguments.step_factor) {
    if (*arguments.step_factor < 2)
      throw std::invalid_argument(fmt::format(
          "-f/--stepfactor {} must be at least 2 (each size is the previous one times the factor); e.g. -f 2",
          *arguments.step_factor));
    options.step_factor = *arguments.step_factor;
    options.step_bytes = 0;
  }
  if (arguments.type == "all")
    throw std::invalid_argument("-d all (every type in turn) is a `ringlab bench` option; give one type here, e.g. -d float32");
  options.type = parse_data_type(arguments.type);
  options.algorithm_options = arguments.algorithm_options;
  options.quiet = arguments.quiet;
}

}  // namespace ringlab::cli
