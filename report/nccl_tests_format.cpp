#include "report/nccl_tests_format.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace ringlab::report {

namespace {

// The identity of a table line: the same (type, op, size) out-of-place and in-place.
using LineKey = std::tuple<std::string, std::string, std::int64_t>;

std::string figures_text(const NcclTestsFigures& figures) {
  const std::string time = nccl_tests_number(figures.time_us, 7);
  const std::string algbw = nccl_tests_number(figures.algbw_gbps, 6);
  const std::string busbw = nccl_tests_number(figures.busbw_gbps, 6);
  // Unchecked results are "N/A" in a field one character narrower than the count's, as nccl-tests prints it.
  if (figures.wrong < 0) return fmt::sprintf("  %7s  %6s  %6s    N/A", time, algbw, busbw);
  return fmt::sprintf("  %7s  %6s  %6s  %6g", time, algbw, busbw, static_cast<double>(figures.wrong));
}

NcclTestsFigures figures_of(const nlohmann::json& row) {
  NcclTestsFigures figures;
  // nccl-tests times a loop of calls and divides: its time is ringlab's loop_avg (older reports and
  // predictions have only avg, the mean of the per-call samples). The bandwidths follow the time.
  const nlohmann::json& time = row.at("time_us");
  const double mean_us = time.at("avg").get<double>();
  figures.time_us = time.contains("loop_avg") ? time.at("loop_avg").get<double>() : mean_us;
  const double scale = figures.time_us > 0 ? mean_us / figures.time_us : 1.0;
  figures.algbw_gbps = row.at("algbw_gbps").get<double>() * scale;
  figures.busbw_gbps = row.at("busbw_gbps").get<double>() * scale;
  figures.wrong = row.at("wrong").get<std::int64_t>();
  return figures;
}

// A row's line key and placement, with the type in nccl-tests' spelling.
LineKey key_of(const nlohmann::json& row) {
  return {std::string(nccl_tests_type_name(row.at("type").get<std::string>())),
          row.at("redop").get<std::string>(), row.at("size_bytes").get<std::int64_t>()};
}

NcclTestsTable table_of(const std::string& algorithm, const nlohmann::json& results) {
  NcclTestsTable table;
  table.algorithm = algorithm;
  std::map<LineKey, std::pair<std::size_t, int>> found;  // line index, placements seen (1 oop, 2 in-place)
  double busbw_sum = 0;
  int placements = 0;
  for (const nlohmann::json& row : results) {
    if (row.at("algorithm").get<std::string>() != algorithm) continue;
    const LineKey key = key_of(row);
    auto [entry, added] = found.try_emplace(key, table.lines.size(), 0);
    if (added) {
      NcclTestsLine line;
      std::tie(line.type, line.redop, line.size_bytes) = key;
      line.count = row.at("count").get<std::int64_t>();
      line.iterations = row.value("iters", 0);
      table.lines.push_back(line);
    }
    const bool in_place = row.at("placement").get<std::string>() == "in-place";
    const NcclTestsFigures figures = figures_of(row);
    NcclTestsLine& line = table.lines[entry->second.first];
    (in_place ? line.in_place : line.out_of_place) = figures;
    entry->second.second |= in_place ? 2 : 1;
    busbw_sum += figures.busbw_gbps;
    ++placements;
    if (figures.wrong > 0) ++table.failed_results;
  }
  for (const auto& [key, entry] : found)
    if (entry.second != 3)
      throw std::invalid_argument(fmt::format(
          "{} at {} B ({} {}): the report has only its {} result; the nccl-tests table needs both placements",
          algorithm, std::get<2>(key), std::get<0>(key), std::get<1>(key), entry.second == 1 ? "out-of-place" : "in-place"));
  table.average_busbw_gbps = placements > 0 ? busbw_sum / placements : 0.0;
  return table;
}

}  // namespace

std::string_view nccl_tests_type_name(std::string_view type) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> spellings = {{{"float32", "float"},
                                                                                      {"float64", "double"},
                                                                                      {"float16", "half"},
                                                                                      {"bfloat16", "bfloat16"},
                                                                                      {"int32", "int32"},
                                                                                      {"int64", "int64"}}};
  for (const auto& [ringlab_name, nccl_tests_name] : spellings)
    if (ringlab_name == type) return nccl_tests_name;
  throw std::invalid_argument(fmt::format(
      "unknown data type '{}' in a ringlab.bench/1 report; valid types: float32, float64, float16, bfloat16, int32, int64",
      type));
}

std::string ringlab_type_name(std::string_view nccl_tests_type) {
  if (nccl_tests_type == "int") return "int32";
  for (const std::string_view name : {"float32", "float64", "float16", "bfloat16", "int32", "int64"})
    if (nccl_tests_type_name(name) == nccl_tests_type) return std::string(name);
  return {};
}

std::string nccl_tests_number(double value, int width) {
  for (int decimals : {2, 1, 0}) {
    std::string text = fmt::sprintf("%*.*f", width, decimals, value);
    if (static_cast<int>(text.size()) <= width) return text;
  }
  return fmt::sprintf(width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

std::vector<NcclTestsTable> nccl_tests_tables(const nlohmann::json& report) {
  std::vector<NcclTestsTable> tables;
  const nlohmann::json& results = report.at("results");
  for (const nlohmann::json& algorithm : report.at("config").at("algorithms"))
    tables.push_back(table_of(algorithm.get<std::string>(), results));
  return tables;
}

std::string nccl_tests_column_titles() {
  std::string text = "#\n";
  text += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
                       "", "", "", "", "");
  text += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size", "count", "type",
                       "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  text += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)", "(elements)", "",
                       "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  return text;
}

std::string nccl_tests_line(const NcclTestsLine& line) {
  return fmt::sprintf("%12lld  %12lld  %8s  %6s  %6s", static_cast<long long>(line.size_bytes),
                      static_cast<long long>(line.count), line.type, line.redop, fmt::sprintf("%6d", line.root)) +
         figures_text(line.out_of_place) + figures_text(line.in_place) + "\n";
}

std::string nccl_tests_footer(const NcclTestsTable& table) {
  // nccl-tests follows the bandwidth with its NCCL_TESTS_MIN_BW verdict; unset, that is empty (a trailing space).
  return fmt::sprintf("# %-20s : %lld %s\n", "Out of bounds values", static_cast<long long>(table.failed_results),
                      table.failed_results != 0 ? "FAILED" : "OK") +
         fmt::sprintf("# %-20s : %g %s\n", "Avg bus bandwidth", table.average_busbw_gbps, "") + "#\n";
}

std::string nccl_tests_preamble(const nlohmann::json& report, bool gpus) {
  const nlohmann::json& config = report.at("config");
  const std::string backend = config.at("backend").get<std::string>();
  const std::int64_t step_bytes = config.at("stepbytes").get<std::int64_t>();
  std::string text = fmt::format("# ringlab {}: {}\n", report.value("kind", "") == "predicted" ? "prediction" : "bench",
                                 report.at("command").get<std::string>());
  text += fmt::format("# backend {} | {} ranks | type {} | op {} | average {} | segment {} B | ringlab's own report: --json\n",
                      backend, config.at("nranks").get<int>(), config.at("datatype").get<std::string>(),
                      config.at("op").get<std::string>(), config.at("average").get<std::string>(),
                      config.at("segment_bytes").get<std::int64_t>());
  if (config.contains("placement")) text += fmt::format("# placement {}\n", config.at("placement").get<std::string>());
  text += "# Collective test starting: all_reduce_perf\n";
  text += fmt::sprintf(
      "# nThread %d nGpus %d minBytes %lld maxBytes %lld step: %lld(%s) warmup iters: %d iters: %d agg iters: %d "
      "validation: %d graph: %d unalign: %d\n",
      1, gpus ? 1 : 0, static_cast<long long>(config.at("minbytes").get<std::int64_t>()),
      static_cast<long long>(config.at("maxbytes").get<std::int64_t>()),
      static_cast<long long>(step_bytes > 0 ? step_bytes : config.at("stepfactor").get<std::int64_t>()),
      step_bytes > 0 ? "bytes" : "factor", config.at("warmup_iters").get<int>(), config.at("iters").get<int>(), 1,
      config.at("check").get<bool>() ? 1 : 0, 0, 0);
  text += "#\n";
  return text;
}

std::string nccl_tests_text(const nlohmann::json& report) {
  std::string text;
  for (const NcclTestsTable& table : nccl_tests_tables(report)) {
    text += fmt::format("# Algorithm: {}\n", table.algorithm);
    text += nccl_tests_column_titles();
    for (const NcclTestsLine& line : table.lines) text += nccl_tests_line(line);
    text += nccl_tests_footer(table);
  }
  text += "# Collective test concluded: all_reduce_perf\n#\n";
  return text;
}

}  // namespace ringlab::report
