// Fuzz target: the size-sweep options `ringlab bench` and `ringlab simulate` share
// (cli/sweep_arguments.*, bench/src/bench_options.*). Steps: split the input at newlines into
// argv; parse it with the same CLI11 options as the commands; apply them (sizes, data type,
// root/shards), expand the sweep and check its memory need. CLI11's parse errors and
// std::invalid_argument are the answers to bad input; anything else is a finding, and so is an
// accepted sweep whose sizes are not ascending multiples of the element size within [-b, -e].
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/src/bench_options.hpp"
#include "cli/sweep_arguments.hpp"

namespace {

constexpr std::size_t max_arguments = 64;

std::vector<std::string> reversed_arguments(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments(1);
  for (std::size_t i = 0; i < size && arguments.size() <= max_arguments; ++i) {
    if (data[i] == '\n') arguments.emplace_back();
    else arguments.back().push_back(static_cast<char>(data[i]));
  }
  std::reverse(arguments.begin(), arguments.end());  // CLI::App::parse takes them last first
  return arguments;
}

void check_sizes(const ringlab::bench::BenchOptions& options, const std::vector<ringlab::bench::SweepSize>& sizes) {
  const auto element = static_cast<std::int64_t>(ringlab::element_size(options.type));
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const ringlab::bench::SweepSize& size = sizes[i];
    if (size.bytes < 0 || size.bytes > options.max_bytes || size.bytes % element != 0 ||
        size.count * element != size.bytes || (i > 0 && sizes[i - 1].bytes >= size.bytes))
      std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CLI::App app("fuzz_bench_options");
  ringlab::cli::SweepArguments arguments;
  ringlab::cli::add_sweep_options(app, arguments);
  std::vector<std::string> argv = reversed_arguments(data, size);
  try {
    app.parse(argv);
    ringlab::bench::BenchOptions options;
    ringlab::cli::apply_sweep_arguments(arguments, options);
    std::vector<std::string> notes;
    const auto sizes = ringlab::bench::sweep_sizes(options, &notes);
    check_sizes(options, sizes);
    ringlab::bench::check_memory(options, 4, std::int64_t{16} << 30);
  } catch (const CLI::Error&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
