#include "report/nccl_tests_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/json_input.hpp"
#include "io/printable.hpp"
#include "report/bandwidth.hpp"
#include "report/nccl_tests_format.hpp"
#include "report/utc_timestamp.hpp"

namespace ringlab::report {

namespace {

// What the header says of the run; the defaults stand where it says nothing.
struct RunHeader {
  int nranks = 0;
  std::string hostname = "unknown";
  std::vector<std::string> gpus;  // the device names of the "# Rank" lines (JSON: one per process)
  std::optional<std::string> nccl_version;
  std::string command = "all_reduce_perf (nccl-tests' text output)";
  std::optional<std::int64_t> min_bytes, max_bytes;  // empty: the rows' smallest and largest
  std::int64_t step_factor = 2;
  std::int64_t step_bytes = 0;
  int iterations = 1;
  int warmup_iterations = 0;
};

struct ParsedRun {
  RunHeader header;
  std::vector<NcclTestsTable> tables;
};

[[noreturn]] void refuse(const std::string& where, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}: {}", where, what));
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t start = 0;
  while ((start = line.find_first_not_of(" \t\r", start)) != std::string_view::npos) {
    const std::size_t stop = std::min(line.find_first_of(" \t\r", start), line.size());
    tokens.push_back(line.substr(start, stop - start));
    start = stop;
  }
  return tokens;
}

template <class T>
std::optional<T> parsed(std::string_view token) {
  T value{};
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(value)) return std::nullopt;
  return value;
}

template <class T>
T number(std::string_view token, const std::string& where, std::string_view column) {
  const std::optional<T> value = parsed<T>(token);
  if (!value)
    refuse(where, fmt::format("{} '{}' is not {}: the output is damaged; pass nccl-tests' output as it printed it",
                              column, io::printable(token), std::is_floating_point_v<T> ? "a number" : "an integer"));
  return *value;
}

// Sizes and counts as compare takes them (0..2^40), so count x element size cannot overflow.
constexpr std::int64_t max_bytes = std::int64_t{1} << 40;
constexpr std::int64_t max_ranks = std::int64_t{1} << 20;

// A #wrong figure (a double in nccl-tests' JSON and %g text) as a count, without overflowing.
std::int64_t wrong_count(double value) { return static_cast<std::int64_t>(std::ceil(std::clamp(value, -1.0, 1e18))); }

std::int64_t element_bytes(std::string_view ringlab_name) {
  return ringlab_name == "float64" || ringlab_name == "int64" ? 8 : ringlab_name == "float32" || ringlab_name == "int32" ? 4 : 2;
}

// NCCL's version code (22703, or 2800 before 2.9) -> "2.27.3".
std::string version_of(std::int64_t code) {
  if (code >= 20900) return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
}

// The checks every row of either input passes; `first` is the run's first row (none for itself).
void check_line(const NcclTestsLine& line, int nranks, const std::string& where, const NcclTestsLine* first) {
  const std::string type = ringlab_type_name(line.type);
  if (type.empty())
    refuse(where, fmt::format("type '{}' has no ringlab counterpart; ringlab prices float, double, half, bfloat16, "
                              "int32 and int64 (nccl-tests -d float)",
                              io::printable(line.type)));
  constexpr std::array<std::string_view, 5> ops = {"sum", "prod", "min", "max", "avg"};
  if (std::find(ops.begin(), ops.end(), line.redop) == ops.end())
    refuse(where, fmt::format("redop '{}' has no ringlab counterpart; ringlab prices sum, prod, min, max and avg "
                              "(nccl-tests -o sum)",
                              io::printable(line.redop)));
  if (first && (line.type != first->type || line.redop != first->redop))
    refuse(where, fmt::format("type {} and op {} differ from the first row's ({} {}): compare takes one type and one "
                              "op; run nccl-tests with one -d TYPE and one -o OP",
                              line.type, line.redop, first->type, first->redop));
  if (line.size_bytes < 0 || line.size_bytes > max_bytes || line.count < 0 || line.count > max_bytes)
    refuse(where, fmt::format("size {} B or count {} is outside [0, 2^40]", line.size_bytes, line.count));
  if (line.size_bytes != line.count * element_bytes(type))
    refuse(where, fmt::format("size {} B is not count {} x {} B: not all_reduce_perf's row (reduce_scatter_perf and "
                              "all_gather_perf print all ranks' bytes); ringlab reads all_reduce_perf output only",
                              line.size_bytes, line.count, element_bytes(type)));
  for (const auto& [figures, placement] :
       {std::pair{&line.out_of_place, "out-of-place"}, std::pair{&line.in_place, "in-place"}}) {
    if (figures->wrong > 0)
      refuse(where, fmt::format("#wrong is {} {}: nccl-tests found wrong results, so the all-reduce it timed is "
                                "broken; fix the run and measure again",
                                figures->wrong, placement));
    if (!(figures->time_us > 0))
      refuse(where, fmt::format("the {} time is {} us; a time must be positive", placement, figures->time_us));
    const double expected = figures->algbw_gbps * 2.0 * (nranks - 1) / nranks;
    if (figures->algbw_gbps >= 1 && std::abs(figures->busbw_gbps - expected) > 0.01 * expected + 0.02)
      refuse(where, fmt::format("{} busbw {} is not algbw {} x 2(N-1)/N = {:.2f} for N = {} ranks: not all_reduce_perf's "
                                "bus bandwidth (reduce_scatter_perf and all_gather_perf use (N-1)/N; broadcast, reduce "
                                "and sendrecv 1), or the output does not list every rank",
                                placement, figures->busbw_gbps, figures->algbw_gbps, expected, nranks));
  }
}

// The column titles of a text table: where each field is.
struct Columns {
  int line = 0;
  std::size_t tokens = 0;  // fields of a row (a timestamp is two)
  int size = -1, count = -1, type = -1, redop = -1, root = -1;
  struct Placement {
    int time = -1, algbw = -1, busbw = -1, wrong = -1;
  };
  std::array<Placement, 2> placements;
  bool error_column = false;  // before mid-2022: "error", the largest deviation, not a count
};

Columns columns_of(const std::vector<std::string_view>& titles, int line, const std::string& where) {
  Columns columns;
  columns.line = line;
  columns.tokens = titles.size();
  int placement = -1;
  for (std::size_t i = 0; i < titles.size(); ++i) {
    const std::string_view name = titles[i];
    const int index = static_cast<int>(i);
    if (name == "size") columns.size = index;
    if (name == "count") columns.count = index;
    if (name == "type") columns.type = index;
    if (name == "redop") columns.redop = index;
    if (name == "root") columns.root = index;
    if (name == "timestamp") ++columns.tokens;
    if (name == "time" || name == "cputime") {
      if (++placement > 1) refuse(where, "the column titles name more than two times; not an all_reduce_perf table");
      columns.placements[placement].time = index;
    }
    if (placement < 0) continue;
    if (name == "algbw") columns.placements[placement].algbw = index;
    if (name == "busbw") columns.placements[placement].busbw = index;
    if (name == "#wrong" || name == "error") {
      columns.placements[placement].wrong = index;
      columns.error_column = name == "error";
    }
  }
  const bool whole = columns.size >= 0 && columns.count >= 0 && columns.type >= 0 && columns.redop >= 0 &&
                     std::all_of(columns.placements.begin(), columns.placements.end(), [](const Columns::Placement& p) {
                       return p.time >= 0 && p.algbw >= 0 && p.busbw >= 0 && p.wrong >= 0;
                     });
  if (!whole)
    refuse(where, "the column titles lack some of size, count, type, redop and time, algbw, busbw, #wrong for both "
                  "placements: not an all_reduce_perf table");
  return columns;
}

NcclTestsLine row_of(const std::vector<std::string_view>& fields, const Columns& columns, const std::string& where) {
  NcclTestsLine line;
  line.size_bytes = number<std::int64_t>(fields[columns.size], where, "size");
  line.count = number<std::int64_t>(fields[columns.count], where, "count");
  line.type = std::string(fields[columns.type]);
  line.redop = std::string(fields[columns.redop]);
  if (columns.root >= 0) line.root = number<int>(fields[columns.root], where, "root");
  for (int p = 0; p < 2; ++p) {
    const Columns::Placement& at = columns.placements[p];
    NcclTestsFigures& figures = p == 0 ? line.out_of_place : line.in_place;
    const std::string_view placement = p == 0 ? "out-of-place" : "in-place";
    figures.time_us = number<double>(fields[at.time], where, fmt::format("{} time", placement));
    figures.algbw_gbps = number<double>(fields[at.algbw], where, fmt::format("{} algbw", placement));
    figures.busbw_gbps = number<double>(fields[at.busbw], where, fmt::format("{} busbw", placement));
    const std::string_view wrong = fields[at.wrong];
    if (wrong != "N/A") {
      const double value = number<double>(wrong, where, fmt::format("{} #wrong", placement));
      // The old "error" column is a deviation (1e-07 is normal); its verdict is the out-of-bounds line.
      figures.wrong = columns.error_column ? -1 : wrong_count(value);
    }
  }
  return line;
}

// "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...".
void read_thread_line(const std::vector<std::string_view>& tokens, RunHeader& header, const std::string& where) {
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const std::string_view key = tokens[i];
    const std::string_view value = tokens[i + 1];
    if (key == "minBytes") header.min_bytes = number<std::int64_t>(value, where, "minBytes");
    if (key == "maxBytes") header.max_bytes = number<std::int64_t>(value, where, "maxBytes");
    if (key == "step:") {
      const std::size_t open = value.find('(');
      const std::int64_t step = number<std::int64_t>(value.substr(0, open), where, "step");
      const bool factor = value.substr(open == std::string_view::npos ? value.size() : open) == "(factor)";
      header.step_factor = factor ? step : 0;
      header.step_bytes = factor ? 0 : step;
    }
    if (key == "iters:" && i > 0 && tokens[i - 1] == "warmup")
      header.warmup_iterations = number<int>(value, where, "warmup iters");
    else if (key == "iters:" && (i == 0 || tokens[i - 1] != "agg"))
      header.iterations = number<int>(value, where, "iters");
  }
}

// "#  Rank  0 Group  0 Pid 1234 on HOST device  0 [0000:07:00] NVIDIA A100-SXM4-80GB" (no Group before 2022).
void read_rank_line(std::string_view body, RunHeader& header) {
  const std::vector<std::string_view> tokens = tokens_of(body);
  if (header.nranks == 0)
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
      if (tokens[i] == "on") header.hostname = io::printable(tokens[i + 1]);
  const std::size_t bracket = body.find("] ");
  header.gpus.push_back(io::printable(bracket == std::string_view::npos ? "unknown" : trim(body.substr(bracket + 2))));
  ++header.nranks;
}

// ringlab's own preamble: "# backend simulator | 8 ranks | type float32 | ...".
std::optional<int> ringlab_ranks(std::string_view body) {
  const std::vector<std::string_view> tokens = tokens_of(body);
  for (std::size_t i = 1; i < tokens.size(); ++i)
    if (tokens[i] == "ranks" && tokens[0] == "backend") {
      const std::optional<int> count = parsed<int>(tokens[i - 1]);
      return count && *count >= 1 ? count : std::nullopt;
    }
  return std::nullopt;
}

std::optional<std::int64_t> after_colon(std::string_view body) {
  const std::vector<std::string_view> tokens = tokens_of(body.substr(body.find(':') + 1));
  return tokens.empty() ? std::nullopt : parsed<std::int64_t>(tokens[0]);
}

ParsedRun parse_text(std::string_view text, const std::string& source, const std::string& algorithm) {
  ParsedRun run;
  std::optional<Columns> columns;  // set inside a table
  NcclTestsTable table;
  std::string next_algorithm = algorithm;
  std::optional<int> ringlab_count;
  std::set<std::string> algorithms_seen;
  bool out_of_bounds_seen = false;
  int line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t stop = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, stop - start));
    start = stop + 1;
    ++line_number;
    if (line.empty()) continue;
    const std::string where = fmt::format("{} line {}", source, line_number);
    if (line[0] == '#') {
      const std::string_view body = trim(line.substr(1));
      const std::vector<std::string_view> tokens = tokens_of(body);
      if (tokens.empty()) continue;
      if (body.starts_with("Out of bounds values") || body.starts_with("Avg bus bandwidth")) {
        if (!columns) refuse(where, "a closing line without a table before it: the column titles were cut; pass the whole output");
        const std::optional<std::int64_t> value = after_colon(body);
        if (body.starts_with("Out of bounds values")) {
          if (!value) refuse(where, "the out-of-bounds count is not an integer; the output is damaged");
          if (*value > 0)
            refuse(where, fmt::format("nccl-tests counted {} out-of-bounds (wrong) results, so the all-reduce it "
                                      "timed is broken; fix the run and measure again",
                                      *value));
          out_of_bounds_seen = true;
          continue;
        }
        if (!out_of_bounds_seen || table.lines.empty())
          refuse(where, fmt::format("the table of line {} closes without {}: the output was cut; pass the whole output",
                                    columns->line, table.lines.empty() ? "a row" : "its '# Out of bounds values' line"));
        run.tables.push_back(std::move(table));
        table = {};
        columns.reset();
        continue;
      }
      if (columns) {
        if (tokens[0] == "size")
          refuse(where, fmt::format("a new table starts before the one of line {} closed ('# Out of bounds values', "
                                    "'# Avg bus bandwidth'): that run was cut short; pass whole runs",
                                    columns->line));
        continue;  // the units line
      }
      if (body.starts_with("Collective test starting:")) {
        const std::string_view program = trim(body.substr(body.find(':') + 1));
        if (!program.starts_with("all_reduce_perf"))
          refuse(where, fmt::format("this is {} output; ringlab reads all_reduce_perf's only", io::printable(program)));
      } else if (tokens[0] == "nThread") {
        read_thread_line(tokens, run.header, where);
      } else if (tokens[0] == "Rank") {
        read_rank_line(body, run.header);
      } else if (tokens[0] == "nccl-tests" && tokens.size() > 1 && tokens[1] == "version") {
        for (const std::string_view token : tokens)
          if (token.starts_with("nccl-library="))
            run.header.nccl_version = version_of(number<std::int64_t>(token.substr(13), where, "nccl-library"));
      } else if (body.starts_with("Algorithm:")) {
        next_algorithm = io::printable(trim(body.substr(10)));
      } else if (const std::optional<int> count = ringlab_ranks(body)) {
        ringlab_count = count;
      } else if (tokens[0] == "size") {
        if (!algorithms_seen.insert(next_algorithm).second)
          refuse(where, fmt::format("a second table of {}: one run per file (ringlab's tables each have their own "
                                    "'# Algorithm: NAME' line)",
                                    next_algorithm));
        columns = columns_of(tokens, line_number, where);
        table.algorithm = next_algorithm;
        out_of_bounds_seen = false;
      }
      continue;
    }
    if (!columns) continue;  // NCCL's own log before or after a table
    if (line.find(" NCCL INFO ") != std::string_view::npos || line.find(" NCCL WARN ") != std::string_view::npos)
      continue;
    const std::vector<std::string_view> fields = tokens_of(line);
    if (fields.size() != columns->tokens)
      refuse(where, fmt::format("the row has {} fields where the column titles (line {}) name {}: a row cut short "
                                "or changed; pass nccl-tests' output as it printed it",
                                fields.size(), columns->line, columns->tokens));
    if (run.header.nranks == 0 && ringlab_count) run.header.nranks = *ringlab_count;
    if (run.header.nranks == 0)
      refuse(where, "no '#  Rank R ... device D' lines before the table, so the rank count is unknown: pass the "
                    "whole output, header included");
    NcclTestsLine row = row_of(fields, *columns, where);
    const NcclTestsLine* first = run.tables.empty() ? (table.lines.empty() ? nullptr : &table.lines.front())
                                                    : &run.tables.front().lines.front();
    check_line(row, run.header.nranks, where, first);
    table.lines.push_back(std::move(row));
  }
  if (columns)
    refuse(fmt::format("{} line {}", source, line_number),
           fmt::format("the table of line {} never closes: nccl-tests always ends one with '# Out of bounds values' "
                       "and '# Avg bus bandwidth', so the output was cut short; pass the whole output",
                       columns->line));
  if (run.tables.empty())
    refuse(source, "no all_reduce_perf table (column titles '# size count type redop root time algbw busbw #wrong "
                   "...'): neither nccl-tests' output nor a ringlab.bench/1 report");
  return run;
}

// object[key] as a T, refused (naming `where`.key) when missing or mistyped.
template <class T>
T json_field(const nlohmann::json& object, const char* key, const std::string& where) {
  const std::string named = fmt::format("{}.{}", where, key);
  if (!object.is_object() || !object.contains(key)) refuse(named, "missing; the JSON was cut or is not nccl-tests' -J output");
  const nlohmann::json& value = object.at(key);
  if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) refuse(named, fmt::format("expected a string, got {}", io::printable(value.dump())));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) refuse(named, fmt::format("expected a number, got {}", io::printable(value.dump())));
  } else {
    if (!value.is_number_integer()) refuse(named, fmt::format("expected an integer, got {}", io::printable(value.dump())));
  }
  return value.get<T>();
}

NcclTestsFigures figures_of(const nlohmann::json& result, const char* key, const std::string& where) {
  const std::string named = fmt::format("{}.{}", where, key);
  if (!result.contains(key) || !result.at(key).is_object())
    refuse(named, "missing or not an object: a run without both placements; measure both (no trace replay)");
  const nlohmann::json& figures = result.at(key);
  NcclTestsFigures out;
  out.time_us = json_field<double>(figures, figures.contains("cpu_time") ? "cpu_time" : "time", named);
  out.algbw_gbps = json_field<double>(figures, "alg_bw", named);
  out.busbw_gbps = json_field<double>(figures, "bus_bw", named);
  if (figures.contains("nwrong") && !figures.at("nwrong").is_null())
    out.wrong = wrong_count(json_field<double>(figures, "nwrong", named));
  return out;
}

ParsedRun parse_json(const nlohmann::json& document, const std::string& source, const std::string& algorithm) {
  ParsedRun run;
  RunHeader& header = run.header;
  if (document.contains("args") && document.at("args").is_array() && !document.at("args").empty()) {
    const nlohmann::json& args = document.at("args");
    const std::string program = args.front().is_string() ? args.front().get<std::string>() : std::string();
    const std::string name = program.substr(program.find_last_of('/') == std::string::npos ? 0 : program.find_last_of('/') + 1);
    if (!name.starts_with("all_reduce_perf") && !document.contains("ringlab"))  // ringlab bench -J: ringlab's name
      refuse(source + " args[0]", fmt::format("'{}' is not all_reduce_perf; ringlab reads all_reduce_perf's output only",
                                              io::printable(program)));
    header.command.clear();
    for (const nlohmann::json& arg : args)
      if (arg.is_string()) header.command += (header.command.empty() ? "" : " ") + io::printable(arg.get<std::string>());
  }
  if (document.contains("nccl_version") && document.at("nccl_version").is_number_integer() &&
      document.at("nccl_version").get<std::int64_t>() > 0)
    header.nccl_version = version_of(document.at("nccl_version").get<std::int64_t>());
  const std::string config_where = source + " config";
  if (!document.contains("config")) refuse(config_where, "missing; the JSON was cut or is not nccl-tests' -J output");
  const nlohmann::json& config = document.at("config");
  const std::int64_t threads = json_field<std::int64_t>(config, "nthreads", config_where);
  const std::int64_t gpus = json_field<std::int64_t>(config, "ngpus", config_where);
  if (threads < 0 || threads > max_ranks || gpus < 0 || gpus > max_ranks)
    refuse(config_where, fmt::format("nthreads {} or ngpus {} is outside [0, 2^20]", threads, gpus));
  const std::int64_t per_process = threads * gpus;
  if (!config.contains("devices") || !config.at("devices").is_array() || config.at("devices").empty())
    refuse(config_where + ".devices", "missing or empty, so the rank count is unknown");
  const nlohmann::json& devices = config.at("devices");
  // nccl-tests lists one device a process; ringlab bench -J one a rank (CPU ranks: ngpus 0), with its N.
  const bool ringlab = document.contains("ringlab") && document.at("ringlab").is_object();
  const std::int64_t nranks = ringlab ? json_field<std::int64_t>(document.at("ringlab"), "nranks", source + " ringlab")
                                      : per_process * std::min<std::int64_t>(static_cast<std::int64_t>(devices.size()), max_ranks + 1);
  if (nranks < 1 || nranks > max_ranks)
    refuse(config_where, fmt::format("{} ranks ({} processes x nthreads x ngpus) is outside [1, 1048576]", nranks, devices.size()));
  header.nranks = static_cast<int>(nranks);
  for (const nlohmann::json& device : devices) {
    if (device.is_object() && device.contains("hostname") && device.at("hostname").is_string() && header.gpus.empty())
      header.hostname = io::printable(device.at("hostname").get<std::string>());
    header.gpus.push_back(device.is_object() && device.contains("device_info") && device.at("device_info").is_string()
                              ? io::printable(device.at("device_info").get<std::string>())
                              : "unknown");
  }
  header.min_bytes = json_field<std::int64_t>(config, "minimum_bytes", config_where);
  header.max_bytes = json_field<std::int64_t>(config, "maximum_bytes", config_where);
  header.step_factor = config.contains("step_factor") ? json_field<std::int64_t>(config, "step_factor", config_where) : 0;
  header.step_bytes = config.contains("step_factor") ? 0 : json_field<std::int64_t>(config, "step_bytes", config_where);
  header.iterations = json_field<int>(config, "iterations", config_where);
  header.warmup_iterations = json_field<int>(config, "warmup_iters", config_where);

  if (!document.contains("results") || !document.at("results").is_array())
    refuse(source + " results", "missing or not an array; the JSON is not nccl-tests' -J output");
  const nlohmann::json& results = document.at("results");
  std::optional<NcclTestsLine> first;  // the run's first row
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("{} results[{}]", source, i);
    const nlohmann::json& result = results[i];
    NcclTestsLine line;
    line.size_bytes = json_field<std::int64_t>(result, "size", where);
    line.count = json_field<std::int64_t>(result, "count", where);
    line.type = io::printable(json_field<std::string>(result, "type", where));
    line.redop = io::printable(json_field<std::string>(result, "redop", where));
    line.out_of_place = figures_of(result, "out_of_place", where);
    line.in_place = figures_of(result, "in_place", where);
    if (result.contains("actual_iterations") && result.at("actual_iterations").is_number_integer())
      line.iterations = result.at("actual_iterations").get<int>();
    check_line(line, header.nranks, where, first ? &*first : nullptr);
    if (!first) first = line;
    // nccl-tests leaves experiment_name empty; ringlab bench -J names the algorithm there.
    const std::string name = result.contains("experiment_name") && result.at("experiment_name").is_string() &&
                                     !result.at("experiment_name").get<std::string>().empty()
                                 ? io::printable(result.at("experiment_name").get<std::string>())
                                 : algorithm;
    auto table = std::find_if(run.tables.begin(), run.tables.end(),
                              [&name](const NcclTestsTable& known) { return known.algorithm == name; });
    if (table == run.tables.end()) {
      run.tables.push_back({});
      table = std::prev(run.tables.end());
      table->algorithm = name;
    }
    table->lines.push_back(std::move(line));
  }
  if (run.tables.empty()) refuse(source + " results", "empty: the run timed no size");
  if (!document.contains("average_bus_bandwidth"))
    refuse(source, fmt::format("no average_bus_bandwidth after results[{}]: nccl-tests writes it after the last row, so "
                               "the run ended early; pass a whole run",
                               results.size() - 1));
  if (document.contains("out_of_bounds")) {
    const std::int64_t out_of_bounds = json_field<std::int64_t>(document.at("out_of_bounds"), "count", source + " out_of_bounds");
    if (out_of_bounds > 0)
      refuse(source + " out_of_bounds.count",
             fmt::format("nccl-tests counted {} out-of-bounds (wrong) results, so the all-reduce it timed is broken; "
                         "fix the run and measure again",
                         out_of_bounds));
  }
  return run;
}

nlohmann::json figures_row(const std::string& algorithm, const NcclTestsLine& line, const NcclTestsFigures& figures,
                           bool in_place, const RunHeader& header) {
  const double us = figures.time_us;
  const double algbw = algbw_gbps(line.size_bytes, us * 1e-6);
  return {{"algorithm", algorithm},
          {"size_bytes", line.size_bytes},
          {"count", line.count},
          {"type", ringlab_type_name(line.type)},
          {"redop", line.redop},
          {"placement", in_place ? "in-place" : "out-of-place"},
          {"iters", std::max(1, line.iterations > 0 ? line.iterations : header.iterations)},
          // nccl-tests prints one time, its timed loop's mean: every statistic is that time.
          {"time_us",
           {{"avg", us}, {"min", us}, {"p50", us}, {"p99", us}, {"max", us}, {"cv", 0.0}, {"loop_avg", us},
            {"p50_ci95_low", us}, {"p50_ci95_high", us}, {"p50_ci95_coverage", 0.0}}},
          {"converged", nullptr},
          {"algbw_gbps", algbw},
          {"busbw_gbps", busbw_gbps(algbw, header.nranks)},
          {"wrong", figures.wrong}};
}

nlohmann::json report_of(const ParsedRun& run) {
  const RunHeader& header = run.header;
  const NcclTestsLine& first = run.tables.front().lines.front();
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json algorithms = nlohmann::json::array();
  std::int64_t smallest = first.size_bytes;
  std::int64_t largest = first.size_bytes;
  bool checked = true;
  for (const NcclTestsTable& table : run.tables) {
    algorithms.push_back(table.algorithm);
    for (const NcclTestsLine& line : table.lines) {
      smallest = std::min(smallest, line.size_bytes);
      largest = std::max(largest, line.size_bytes);
      checked = checked && line.out_of_place.wrong >= 0 && line.in_place.wrong >= 0;
      results.push_back(figures_row(table.algorithm, line, line.out_of_place, false, header));
      results.push_back(figures_row(table.algorithm, line, line.in_place, true, header));
    }
  }
  if (!checked)
    for (nlohmann::json& row : results) row["wrong"] = -1;
  return {{"schema", "ringlab.bench/1"},
          {"complete", true},
          {"kind", "measured"},
          {"created", utc_timestamp()},
          {"command", header.command},
          {"machine",
           {{"hostname", header.hostname},
            {"cpu_model", "not recorded (nccl-tests output)"},
            {"cores", 1},
            {"memory_bytes", 0},
            {"os", "not recorded (nccl-tests output)"},
            {"compiler", "not recorded (nccl-tests output)"},
            {"mpi_library", nullptr},
            {"cuda_version", nullptr},
            {"nccl_version", header.nccl_version ? nlohmann::json(*header.nccl_version) : nlohmann::json(nullptr)},
            {"gpus", header.gpus},
            {"memcpy_gbps", 0.0}}},
          {"config",
           {{"backend", "nccl"},
            {"nranks", header.nranks},
            {"datatype", ringlab_type_name(first.type)},
            {"op", first.redop},
            {"minbytes", header.min_bytes.value_or(smallest)},
            {"maxbytes", std::max(header.max_bytes.value_or(largest), header.min_bytes.value_or(smallest))},
            {"stepfactor", header.step_factor},
            {"stepbytes", header.step_bytes},
            {"iters", std::max(1, header.iterations)},
            {"warmup_iters", header.warmup_iterations},
            {"check", checked},
            {"average", "mean"},                        // nccl-tests' default -a 1
            {"segment_bytes", std::int64_t{1} << 20},   // ringlab bench's default: how the model cuts transfers
            {"algorithms", algorithms},
            {"baseline", algorithms.front()},
            {"converge", nullptr}}},
          {"results", std::move(results)}};
}

}  // namespace

nlohmann::json nccl_tests_text_report(std::string_view text, const std::string& source, const std::string& algorithm) {
  return report_of(parse_text(text, source, algorithm));
}

nlohmann::json nccl_tests_json_report(const nlohmann::json& document, const std::string& source,
                                      const std::string& algorithm) {
  return report_of(parse_json(document, source, algorithm));
}

nlohmann::json read_bench_document(const std::string& path, const std::string& algorithm) {
  const std::string text = io::read_text_input(path, "bench report");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] != '{')
    return nccl_tests_text_report(text, fmt::format("nccl-tests output '{}'", io::printable(path)), algorithm);
  nlohmann::json document = io::parse_json_text(text, fmt::format("bench report '{}'", io::printable(path)));
  if (document.is_object() && !document.contains("schema") && document.contains("version") && document.contains("results"))
    return nccl_tests_json_report(document, fmt::format("nccl-tests JSON '{}'", io::printable(path)), algorithm);
  return document;
}

}  // namespace ringlab::report
