#include "simulator/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/segment_limits.hpp"
#include "io/checked_number.hpp"
#include "simulator/finite_prediction.hpp"
#include "io/printable.hpp"
#include "report/nccl_tests_input.hpp"
#include "report/statistics.hpp"

namespace ringlab::simulator {

namespace {

constexpr const char* bench_schema = "ringlab.bench/1";

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::invalid_argument(fmt::format("bench report '{}': {}", io::printable(path), what));
}

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& path,
                             const std::string& where) {
  if (!object.is_object() || !object.contains(key)) fail(path, fmt::format("{}: missing field \"{}\"", where, key));
  return object.at(key);
}

// The documented ranges of the fields compare reads (compare.hpp).
constexpr std::int64_t max_ranks = std::int64_t{1} << 20;  // as a topology's endpoints and a schedule's ranks
constexpr std::int64_t max_bytes = std::int64_t{1} << 40;
constexpr io::NumberRange microseconds_range{0, 1e9, "us", true};  // up to 1000 s

// object.key, an integer in [min, max] (checked before narrowing).
std::int64_t integer_member(const nlohmann::json& object, const char* key, const std::string& path,
                            const std::string& where, std::int64_t min, std::int64_t max) {
  const nlohmann::json& value = member(object, key, path, where);
  try {
    return io::check_json_integer(value, fmt::format("{}.{}", where, key), min, max);
  } catch (const std::invalid_argument& error) {
    fail(path, error.what());
  }
}

std::string string_member(const nlohmann::json& object, const char* key, const std::string& path,
                          const std::string& where) {
  const nlohmann::json& value = member(object, key, path, where);
  if (!value.is_string())
    fail(path, fmt::format("{}.{}: expected a string, got {}", where, key, io::printable(value.dump())));
  return value.get<std::string>();
}

// object.key parsed by `parse` (parse_data_type, parse_reduce_op), its error naming the field.
template <class Parse>
auto parsed_member(const nlohmann::json& object, const char* key, const std::string& path, const std::string& where,
                   Parse parse) {
  try {
    return parse(string_member(object, key, path, where));
  } catch (const std::invalid_argument& error) {
    fail(path, fmt::format("{}.{}: {}", where, key, error.what()));
  }
}

// A row's type and redop, when it has them, else the report's.
MeasuredRow row_from_json(const nlohmann::json& row, const std::string& path, std::size_t index,
                          const MeasuredReport& report) {
  const std::string where = fmt::format("results[{}]", index);
  MeasuredRow measured;
  measured.type = row.is_object() && row.contains("type") ? parsed_member(row, "type", path, where, parse_data_type)
                                                          : report.type;
  measured.op = row.is_object() && row.contains("redop") ? parsed_member(row, "redop", path, where, parse_reduce_op)
                                                         : report.op;
  // Escaped here, since compare prints it; a name with control characters matches no algorithm.
  measured.algorithm = io::printable(string_member(row, "algorithm", path, where));
  measured.size_bytes = integer_member(row, "size_bytes", path, where, 0, max_bytes);
  measured.count = integer_member(row, "count", path, where, 0, max_bytes);
  const std::string placement = string_member(row, "placement", path, where);
  const std::optional<Placement> named = placement_named(placement);
  if (!named)
    fail(path, fmt::format("{}.placement: expected \"out-of-place\" or \"in-place\", got \"{}\"", where,
                           io::printable(placement)));
  measured.placement = *named;
  if (row.contains("auto")) {
    const nlohmann::json& chosen = row.at("auto");
    measured.auto_algorithm = io::printable(string_member(chosen, "algorithm", path, where + ".auto"));
    measured.auto_segment_bytes = integer_member(chosen, "segment_bytes", path, where + ".auto", 0, max_bytes);
  }
  const nlohmann::json& median = member(member(row, "time_us", path, where), "p50", path, where + ".time_us");
  try {
    measured.measured_seconds = io::check_json_number(median, where + ".time_us.p50", microseconds_range) * 1e-6;
  } catch (const std::invalid_argument& error) {
    fail(path, error.what());
  }
  return measured;
}

double abs_quantile(std::vector<double> values, double q) {
  for (double& value : values) value = std::abs(value);
  return report::nearest_rank_quantile(std::move(values), q);
}

// The median of |values|: the middle one, or the mean of the two middle ones of an even count
// (the nearest-rank p50 would be the lower of the two, which flatters a goal on the median).
double abs_median(std::vector<double> values) {
  if (values.empty()) return 0;
  for (double& value : values) value = std::abs(value);
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2;
}

}  // namespace

MeasuredReport read_measured_report(const std::string& path, const std::string& nccl_tests_algorithm) {
  return measured_report_from_json(report::read_bench_document(path, nccl_tests_algorithm), path);
}

MeasuredReport measured_report_from_json(const nlohmann::json& document, const std::string& path) {
  if (!document.is_object()) fail(path, "expected a JSON object (a ringlab.bench/1 report)");
  if (!document.contains("schema") || document.at("schema") != bench_schema)
    fail(path, fmt::format("schema is {}, not \"{}\"; pass a report written by 'ringlab bench --json'",
                           document.contains("schema") ? io::printable(document.at("schema").dump()) : "missing", bench_schema));
  if (string_member(document, "kind", path, "(top level)") != "measured")
    fail(path, "is a predicted report (ringlab simulate); compare needs a measured one (ringlab bench --json)");
  const std::string command = string_member(document, "command", path, "(top level)");
  for (const char* option : {"--root", "--shards", "--group-size", "--inner", "--channels", "--pipeline"})
    if (command.find(option) != std::string::npos)
      fail(path, fmt::format("was run with {}, which the report's config does not record; compare reports run with "
                             "the default --root, --shards, --group-size, --inner, --channels and --pipeline", option));
  const nlohmann::json& config = member(document, "config", path, "(top level)");
  MeasuredReport report;
  report.path = path;
  report.nranks = static_cast<int>(integer_member(config, "nranks", path, "config", 1, max_ranks));
  // A -d all / -o all report holds each (algorithm, size, placement) once per type and op; each
  // row is priced with its own, but the summary is per (algorithm, N): refuse, saying what to do.
  for (const char* key : {"datatype", "op"})
    if (config.contains(key) && config.at(key) == "all")
      fail(path, fmt::format("config.{} is \"all\" (ringlab bench {} all): compare takes a report of one type and one "
                             "op; measure again with one -d TYPE and one -o OP",
                             key, std::string_view(key) == "datatype" ? "-d" : "-o"));
  report.type = parsed_member(config, "datatype", path, "config", parse_data_type);
  if (config.contains("op")) report.op = parsed_member(config, "op", path, "config", parse_reduce_op);
  if (config.contains("backend") && config.at("backend").is_string())
    report.backend = io::printable(config.at("backend").get<std::string>());
  if (config.contains("segment_bytes")) {
    report.segment_bytes = integer_member(config, "segment_bytes", path, "config", 0, max_bytes);
    if (report.segment_bytes > 0 && report.segment_bytes < min_segment_bytes)
      fail(path, fmt::format("config.segment_bytes is {}; the smallest segment the simulator prices is {} B (0 = whole "
                             "transfers): measure again with --segment-bytes 4K or more, or 0",
                             report.segment_bytes, min_segment_bytes));
  }
  if (config.contains("rank_cpus")) {
    const nlohmann::json& lists = config.at("rank_cpus");
    if (!lists.is_array()) fail(path, "config.rank_cpus: expected an array of CPU lists");
    for (std::size_t r = 0; r < lists.size(); ++r) {
      if (!lists[r].is_string()) fail(path, fmt::format("config.rank_cpus[{}]: expected a CPU list like \"0-3\"", r));
      report.rank_cpus.push_back(io::printable(lists[r].get<std::string>()));
    }
  }
  const nlohmann::json& results = member(document, "results", path, "(top level)");
  if (!results.is_array()) fail(path, "results: expected an array of rows");
  for (std::size_t i = 0; i < results.size(); ++i) report.rows.push_back(row_from_json(results[i], path, i, report));
  return report;
}

Comparison compare_reports(const std::vector<MeasuredReport>& reports, const std::vector<Predictor>& predictors,
                           std::int64_t min_bytes) {
  Comparison comparison;
  for (const Predictor& predictor : predictors) comparison.models.push_back(predictor.name);
  std::set<std::string> with_schedule;
  for (const AlgorithmInfo& info : algorithms()) with_schedule.emplace(info.name);
  std::map<std::tuple<std::string, int, int>, Schedule> schedules;  // by (algorithm, N, group size)
  std::set<std::string> left_out;
  for (const MeasuredReport& report : reports) {
    for (const MeasuredRow& row : report.rows) {
      if (!with_schedule.contains(row.ran_algorithm())) {
        left_out.insert(row.ran_algorithm());
        continue;
      }
      const auto key = std::make_tuple(row.ran_algorithm(), report.nranks, report.algorithm_options.group_size);
      if (!schedules.contains(key))
        schedules.emplace(key, make_schedule(row.ran_algorithm(), Collective::allreduce, report.nranks,
                                             report.algorithm_options));
      ComparedRow compared{report.path, report.nranks, row, {}, {}};
      for (const Predictor& predictor : predictors) {
        const double predicted = finite_prediction(
            predictor.seconds(schedules.at(key), row.count, row.type, row.op,
                              row.auto_segment_bytes.value_or(report.segment_bytes), row.placement),
            fmt::format("{} ({} model) at {} B, {} of '{}'", row.algorithm, predictor.name, row.size_bytes,
                        name_of(row.placement), io::printable(report.path)));
        compared.predicted_seconds.push_back(predicted);
        compared.relative_error.push_back((predicted - row.measured_seconds) / row.measured_seconds);
      }
      comparison.rows.push_back(std::move(compared));
    }
  }
  for (const std::string& name : left_out)
    comparison.notes.push_back(fmt::format("{} left out: it has no schedule to predict", name));

  std::map<std::pair<std::string, int>, std::vector<const ComparedRow*>> groups;  // sorted by name, then N
  for (const ComparedRow& row : comparison.rows)
    if (row.measured.size_bytes >= min_bytes) groups[{row.measured.algorithm, row.nranks}].push_back(&row);
  for (const auto& [key, rows] : groups) {
    for (std::size_t model = 0; model < predictors.size(); ++model) {
      std::vector<double> errors;
      for (const ComparedRow* row : rows) errors.push_back(row->relative_error[model]);
      comparison.summaries.push_back({key.first, key.second, predictors[model].name, static_cast<int>(errors.size()),
                                      abs_median(errors), abs_quantile(errors, 0.9)});
    }
  }
  return comparison;
}

nlohmann::json compare_to_json(const Comparison& comparison, std::int64_t min_bytes, const nlohmann::json& context) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ComparedRow& row : comparison.rows) {
    nlohmann::json predicted = nlohmann::json::object();
    nlohmann::json errors = nlohmann::json::object();
    for (std::size_t model = 0; model < comparison.models.size(); ++model) {
      predicted[comparison.models[model]] = row.predicted_seconds[model] * 1e6;
      errors[comparison.models[model]] = row.relative_error[model];
    }
    rows.push_back({{"report", row.report},
                    {"algorithm", row.measured.algorithm},
                    {"nranks", row.nranks},
                    {"type", name_of(row.measured.type)},
                    {"op", name_of(row.measured.op)},
                    {"size_bytes", row.measured.size_bytes},
                    {"count", row.measured.count},
                    {"placement", name_of(row.measured.placement)},
                    {"measured_us", row.measured.measured_seconds * 1e6},
                    {"predicted_us", std::move(predicted)},
                    {"relative_error", std::move(errors)}});
  }
  nlohmann::json summaries = nlohmann::json::array();
  for (const ErrorSummary& summary : comparison.summaries)
    summaries.push_back({{"algorithm", summary.algorithm},
                         {"nranks", summary.nranks},
                         {"model", summary.model},
                         {"rows", summary.rows},
                         {"median_abs_error", summary.median_abs_error},
                         {"p90_abs_error", summary.p90_abs_error}});
  nlohmann::json document = context;
  document["schema"] = "ringlab.compare/1";
  document["min_bytes"] = min_bytes;
  document["models"] = comparison.models;
  document["notes"] = comparison.notes;
  document["rows"] = std::move(rows);
  document["summary"] = std::move(summaries);
  return document;
}

}  // namespace ringlab::simulator
