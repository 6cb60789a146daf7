// The options `ringlab bench` and `ringlab simulate` share, registered and checked in one place:
// the size sweep (-b/-e/-f/-i), the data type (-d), the algorithm list, the parameter-server
// options, the report file and --quiet.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "collectives/algorithms/algorithm.hpp"
#include "bench/src/bench_options.hpp"

namespace ringlab::cli {

struct SweepArguments {
  std::string min_bytes = "8";
  std::string max_bytes = "64M";
  std::optional<std::int64_t> step_factor;  // not given: the default (2), unless -i is given
  std::string step_bytes;
  std::string type = "float32";
  std::string algorithms = "all";
  AlgorithmOptions algorithm_options;
  std::string json;
  bool force = false;
  bool quiet = false;
};

void add_sweep_options(CLI::App& command, SweepArguments& arguments);

// Sets the sizes, the data type, root/shards and quiet of `options` (not the algorithm list,
// which each command checks against what it can run). Throws std::invalid_argument on bad values.
void apply_sweep_arguments(const SweepArguments& arguments, bench::BenchOptions& options);

}  // namespace ringlab::cli
