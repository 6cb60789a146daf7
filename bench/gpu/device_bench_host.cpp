#include "bench/gpu/device_bench_host.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ringlab::device_bench {

void add_options(CLI::App& app, Options& options) {
  app.add_option("--bytes", options.bytes, "Size of each buffer (a, b, out) in bytes (default 1 GiB)")
      ->capture_default_str();
  app.add_option("--repetitions", options.repetitions, "Timed runs of each; the best counts")->capture_default_str();
  app.add_option("--kernels", options.kernels,
                 "Reduce kernels to time, TYPE:OP,... (as -d and -o spell them); each out of place and in place")
      ->capture_default_str();
  app.add_option("--goal", options.goal, "Each kernel's goal: at least this many times the copy's bytes moved per second")
      ->capture_default_str();
  app.add_option("--json", options.json_path, "Also write the figures to this file (- = standard output)")
      ->check(CLI::Validator([](std::string& path) { return path.empty() ? std::string("the path is empty") : std::string(); },
                             "PATH"));
  app.add_flag("--force", options.force, "Overwrite an existing --json file");
}

namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

}  // namespace

std::vector<Kernel> parse_kernels(std::string_view list) {
  std::vector<Kernel> kernels;
  if (trimmed(list).empty()) throw std::invalid_argument("--kernels is empty; give TYPE:OP,... such as float16:sum");
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = trimmed(list.substr(start, comma - start));
    start = comma + 1;
    const auto colon = item.find(':');
    if (colon == std::string_view::npos)
      throw std::invalid_argument(fmt::format("--kernels item '{}' is not TYPE:OP (such as float16:sum)", item));
    Kernel kernel;
    try {
      kernel.type = parse_data_type(trimmed(item.substr(0, colon)));
      kernel.op = parse_reduce_op(trimmed(item.substr(colon + 1)));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(fmt::format("--kernels item '{}': {}", item, error.what()));
    }
    if (kernel.op == ReduceOp::avg)
      throw std::invalid_argument(fmt::format(
          "--kernels item '{}': avg runs the sum kernel and then a divide on the device; time TYPE:sum", item));
    if (std::find(kernels.begin(), kernels.end(), kernel) != kernels.end())
      throw std::invalid_argument(fmt::format("--kernels names {}:{} twice", name_of(kernel.type), name_of(kernel.op)));
    kernels.push_back(kernel);
    kernel.in_place = true;
    kernels.push_back(kernel);
  }
  return kernels;
}

void check_options(const Options& options, const std::vector<Kernel>& kernels) {
  std::size_t element = 1;
  for (const Kernel& kernel : kernels) element = std::max(element, element_size(kernel.type));
  if (options.bytes < 16 || options.bytes % element != 0)
    throw std::invalid_argument(fmt::format(
        "--bytes must be a multiple of {} (the largest element size among --kernels) and at least 16", element));
  if (options.repetitions < 1) throw std::invalid_argument("--repetitions must be at least 1");
  if (!std::isfinite(options.goal) || options.goal <= 0)
    throw std::invalid_argument(fmt::format("--goal must be a positive number, not {}", options.goal));
}

std::string describe(const Kernel& kernel) {
  std::string form;
  switch (kernel.op) {
    case ReduceOp::sum:
    case ReduceOp::avg: form = kernel.in_place ? "a += b" : "out = a + b"; break;
    case ReduceOp::prod: form = kernel.in_place ? "a *= b" : "out = a * b"; break;
    case ReduceOp::min: form = kernel.in_place ? "a = min(a, b)" : "out = min(a, b)"; break;
    case ReduceOp::max: form = kernel.in_place ? "a = max(a, b)" : "out = max(a, b)"; break;
  }
  return fmt::format("reduce {} {} {}", name_of(kernel.type), name_of(kernel.op), form);
}

std::size_t Result::met() const {
  return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const Row& row) { return row.meets_goal; }));
}

Result summarize(std::size_t bytes, int repetitions, double goal, double copy_seconds,
                 const std::vector<std::pair<Kernel, double>>& kernel_seconds) {
  const auto moved = static_cast<double>(bytes);
  Result result{bytes, repetitions, goal, copy_seconds, 2 * moved / copy_seconds / 1e9, {}};
  for (const auto& [kernel, seconds] : kernel_seconds) {
    const double gbps = 3 * moved / seconds / 1e9;
    const double vs_copy = gbps / result.copy_gbps;
    result.rows.push_back({kernel, seconds, gbps, vs_copy, vs_copy >= goal});
  }
  return result;
}

std::string format_text(const Result& result, std::string_view gpu, std::string_view cuda_version) {
  const std::string goal_column = fmt::format(">= {}x", result.goal);
  std::string text = fmt::format("# {} | CUDA {} | {} bytes per buffer, best of {}\n", gpu.empty() ? "?" : gpu,
                                 cuda_version, result.bytes, result.repetitions);
  text += fmt::format("{:<38} {:>10} {:>12} {:>8}  {}\n", "operation", "time (us)", "moved GB/s", "vs copy", goal_column);
  text += fmt::format("{:<38} {:>10.1f} {:>12.1f} {:>8.3f}\n", "cudaMemcpy device to device", result.copy_seconds * 1e6,
                      result.copy_gbps, 1.0);
  std::vector<std::string> missed;
  for (const Row& row : result.rows) {
    text += fmt::format("{:<38} {:>10.1f} {:>12.1f} {:>8.3f}  {}\n", describe(row.kernel), row.seconds * 1e6, row.gbps,
                        row.vs_copy, row.meets_goal ? "met" : "NOT met");
    if (!row.meets_goal) missed.push_back(describe(row.kernel).substr(7));  // without "reduce "
  }
  text += fmt::format("# goal: each reduce kernel >= {}x the copy's bytes moved per second: met by {} of {}{}\n",
                      result.goal, result.met(), result.rows.size(),
                      missed.empty() ? std::string() : fmt::format(" (not by {})", fmt::join(missed, "; ")));
  return text;
}

nlohmann::json to_json(const Result& result, std::string_view gpu, std::string_view cuda_version) {
  nlohmann::json report = {{"schema", "ringlab.device_reduce_bench/1"},
                           {"gpu", gpu},
                           {"cuda_version", cuda_version},
                           {"bytes", result.bytes},
                           {"repetitions", result.repetitions},
                           {"copy_seconds", result.copy_seconds},
                           {"copy_gbps", result.copy_gbps},
                           {"goal_vs_copy", result.goal},
                           {"goal_met", result.met() == result.rows.size()},
                           {"goal_met_count", result.met()}};
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& row : result.rows) {
    rows.push_back({{"type", name_of(row.kernel.type)},
                    {"op", name_of(row.kernel.op)},
                    {"in_place", row.kernel.in_place},
                    {"operation", describe(row.kernel)},
                    {"seconds", row.seconds},
                    {"moved_bytes", 3 * result.bytes},
                    {"gbps", row.gbps},
                    {"vs_copy", row.vs_copy},
                    {"meets_goal", row.meets_goal}});
    // The fields of the first reports (float32 sum only), kept for their readers.
    if (row.kernel.type == DataType::float32 && row.kernel.op == ReduceOp::sum) {
      const std::string prefix = row.kernel.in_place ? "reduce_in_place" : "reduce";
      report[prefix + "_gbps"] = row.gbps;
      report[prefix + "_vs_copy"] = row.vs_copy;
    }
  }
  report["kernels"] = std::move(rows);
  return report;
}

}  // namespace ringlab::device_bench
