#include "cli/cli_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "io/output_file.hpp"
#include "io/printable.hpp"
#include "collectives/segment_limits.hpp"

namespace ringlab::cli {

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::int64_t parse_integer(std::string_view text, std::string_view what) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(fmt::format("{} '{}' is not an integer", what, text));
  return value;
}

}  // namespace

std::vector<int> parse_rank_list(std::string_view text) {
  constexpr std::int64_t max_ranks = 1 << 20;
  std::vector<int> ranks;
  for (std::string_view part : split(text, ',')) {
    const std::size_t dots = part.find("..");
    const std::int64_t first = parse_integer(part.substr(0, dots), "rank count");
    const std::int64_t last = dots == std::string_view::npos ? first : parse_integer(part.substr(dots + 2), "rank count");
    if (first < 1 || last < first || last > max_ranks)
      throw std::invalid_argument(fmt::format(
          "rank range '{}' is invalid: use N, A..B or a comma-separated list with 1 <= A <= B <= {}", part, max_ranks));
    for (std::int64_t n = first; n <= last; ++n) ranks.push_back(static_cast<int>(n));
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::vector<std::vector<int>> parse_node_rings(std::string_view text) {
  std::vector<std::vector<int>> rings;
  for (std::string_view ring : split(text, '/')) {
    rings.emplace_back();
    for (std::string_view rank : split(ring, ',')) {
      const std::int64_t local = parse_integer(rank, "--node-rings rank");
      if (local < 0 || local >= max_node_ring_ranks)
        throw std::invalid_argument(
            fmt::format("--node-rings rank {} is outside 0 .. {}: give local ranks of a node", local, max_node_ring_ranks - 1));
      rings.back().push_back(static_cast<int>(local));
    }
  }
  return rings;
}

std::int64_t parse_size(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty size; use e.g. 1024, 64K, 1M or 2G");
  std::int64_t multiplier = 1;
  switch (text.back()) {
    case 'K': case 'k': multiplier = std::int64_t{1} << 10; break;
    case 'M': case 'm': multiplier = std::int64_t{1} << 20; break;
    case 'G': case 'g': multiplier = std::int64_t{1} << 30; break;
    default: break;
  }
  const std::string_view digits = multiplier == 1 ? text : text.substr(0, text.size() - 1);
  const std::int64_t value = parse_integer(digits, "size");
  if (value < 0) throw std::invalid_argument(fmt::format("size '{}' must not be negative", text));
  if (value > std::numeric_limits<std::int64_t>::max() / multiplier)
    throw std::invalid_argument(fmt::format("size '{}' overflows a 64-bit integer", text));
  return value * multiplier;
}

std::int64_t parse_segment_bytes(std::string_view text) {
  std::int64_t bytes = 0;
  try {
    bytes = parse_size(text);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("--segment-bytes: {} (0 = whole transfers)", error.what()));
  }
  if (bytes != 0 && bytes < min_segment_bytes)
    throw std::invalid_argument(fmt::format("--segment-bytes {}: the smallest segment is {} B (4K); give at least 4K, "
                                            "or 0 for whole transfers",
                                            text, min_segment_bytes));
  return bytes;
}

std::vector<std::int64_t> parse_segment_list(std::string_view text) {
  std::vector<std::int64_t> segments;
  for (std::string_view part : split(text, ',')) {
    if (part.empty())
      throw std::invalid_argument(
          fmt::format("--segment-bytes '{}' has an empty item; give sizes separated by commas, e.g. 256K,1M,4M", text));
    segments.push_back(parse_segment_bytes(part));
  }
  return segments;
}

std::vector<std::string> parse_name_list(std::string_view text, const std::vector<std::string>& valid,
                                         const std::vector<std::string>& named_only) {
  if (text == "all") return valid;
  std::vector<std::string> names;
  const auto add = [&names](std::string_view name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  };
  for (std::string_view part : split(text, ',')) {
    if (part == "all") {
      for (const std::string& name : valid) add(name);
      continue;
    }
    if (std::find(valid.begin(), valid.end(), part) == valid.end() &&
        std::find(named_only.begin(), named_only.end(), part) == named_only.end()) {
      std::vector<std::string> listed = valid;
      listed.insert(listed.end(), named_only.begin(), named_only.end());
      throw std::invalid_argument(fmt::format("unknown name '{}'; valid: {} (or all)", part, fmt::join(listed, ", ")));
    }
    add(part);
  }
  return names;
}

CLI::Validator output_path() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        return path.empty() ? "the path is empty; give a file name, or - for standard output" : "";
      },
      "PATH");
}

void check_output_option(const std::string& path, bool force, std::string_view option) {
  if (!path.empty()) io::check_output_path(path, force, option);
}

bool to_standard_output(std::initializer_list<std::pair<std::string_view, const std::string*>> outputs) {
  std::vector<std::string_view> options;
  for (const auto& [option, path] : outputs)
    if (io::is_standard_output(*path)) options.push_back(option);
  if (options.size() > 1)
    throw std::invalid_argument(fmt::format("{} all name standard output ('-'); at most one output can go there",
                                            fmt::join(options, " and ")));
  // Two outputs on one file: the second would overwrite the first (or --force let it).
  std::vector<std::pair<std::string_view, std::filesystem::path>> files;
  for (const auto& [option, path] : outputs) {
    if (path->empty() || io::is_standard_output(*path)) continue;
    std::error_code error;
    // Absolute first: weakly_canonical leaves a relative path to a file that does not exist yet as it is.
    std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(*path, error), error);
    if (error) resolved = std::filesystem::path(*path).lexically_normal();
    for (const auto& [earlier_option, earlier] : files)
      if (earlier == resolved)
        throw std::invalid_argument(
            fmt::format("{} and {} both name '{}'; give two files", earlier_option, option, io::printable(*path, true)));
    files.emplace_back(option, std::move(resolved));
  }
  return !options.empty();
}

void print_warning(const std::string& message) {
  fmt::print(stderr, "ringlab: warning: {}\n", io::printable(message, true));
}

std::optional<SelectionTable> tuning_for_auto(const std::vector<std::string>& algorithms, const std::string& tuning_path) {
  const bool runs_auto = std::find(algorithms.begin(), algorithms.end(), "auto") != algorithms.end();
  if (runs_auto == tuning_path.empty())
    throw std::invalid_argument(runs_auto ? "--algo auto runs what a tuning table chooses: give --tuning FILE (written "
                                            "by `ringlab tune`)"
                                          : "--tuning FILE is read for --algo auto; add auto to --algo or drop --tuning");
  if (!runs_auto) return std::nullopt;
  return read_selection_table(tuning_path);
}

}  // namespace ringlab::cli
