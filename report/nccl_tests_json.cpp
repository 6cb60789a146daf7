#include "report/nccl_tests_json.hpp"

#include <fmt/printf.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "report/nccl_tests_format.hpp"

namespace ringlab::report {

namespace {

std::string json_bool(bool value) { return value ? "true" : "false"; }

nlohmann::json figures_json(const NcclTestsFigures& figures) {
  return {{"time", figures.time_us},
          {"alg_bw", figures.algbw_gbps},
          {"bus_bw", figures.busbw_gbps},
          {"nwrong", figures.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(static_cast<double>(figures.wrong))}};
}

// One entry of config.devices per rank: ringlab's ranks are CPU processes or threads, so no device
// (-1) and the CPUs the rank may run on as its description.
nlohmann::json devices_json(const nlohmann::json& report) {
  const nlohmann::json& config = report.at("config");
  const std::string hostname = report.at("machine").value("hostname", "");
  nlohmann::json devices = nlohmann::json::array();
  const int nranks = config.at("nranks").get<int>();
  for (int rank = 0; rank < nranks; ++rank) {
    const bool cpus_known = config.contains("rank_cpus") && config.at("rank_cpus").size() > static_cast<std::size_t>(rank);
    devices.push_back({{"rank", rank},
                       {"group", 0},
                       {"pid", 0},
                       {"hostname", hostname},
                       {"device", -1},
                       {"device_hex", ""},
                       {"device_info", cpus_known ? "cpus " + config.at("rank_cpus")[rank].get<std::string>() : "cpus unknown"}});
  }
  return devices;
}

nlohmann::json config_json(const nlohmann::json& report, bool gpus) {
  const nlohmann::json& config = report.at("config");
  nlohmann::json out = {{"nthreads", 1},
                        {"ngpus", gpus ? 1 : 0},
                        {"minimum_bytes", config.at("minbytes")},
                        {"maximum_bytes", config.at("maxbytes")}};
  if (config.at("stepbytes").get<std::int64_t>() > 0)
    out["step_bytes"] = config.at("stepbytes");
  else
    out["step_factor"] = config.at("stepfactor");
  out["warmup_iters"] = config.at("warmup_iters");
  out["iterations"] = config.at("iters");
  out["aggregated_iterations"] = 1;
  out["validation"] = config.at("check").get<bool>() ? 1 : 0;
  out["graph"] = 0;
  out["blocking_collectives"] = json_bool(false);
  out["per_iter_timing"] = json_bool(false);
  out["per_iter_skip"] = 0;
  out["parallel_init"] = json_bool(false);
  out["devices"] = devices_json(report);
  return out;
}

}  // namespace

std::string nccl_tests_time(std::string_view iso_utc) {
  std::string text(iso_utc.substr(0, 19));
  if (text.size() == 19 && text[10] == 'T') text[10] = ' ';
  return text;
}

int nccl_version_code(const std::optional<std::string>& version) {
  if (!version) return 0;
  int parts[3] = {0, 0, 0};
  const char* cursor = version->data();
  const char* end = version->data() + version->size();
  for (int& part : parts) {
    const auto [next, error] = std::from_chars(cursor, end, part);
    if (error != std::errc()) return 0;
    cursor = next;
    if (cursor == end) break;
    if (*cursor != '.') return 0;
    ++cursor;
  }
  const bool new_scheme = parts[0] > 2 || (parts[0] == 2 && parts[1] >= 9);
  return new_scheme ? parts[0] * 10000 + parts[1] * 100 + parts[2] : parts[0] * 1000 + parts[1] * 100 + parts[2];
}

std::vector<std::string> command_arguments(std::string_view command) {
  std::vector<std::string> arguments;
  std::size_t start = 0;
  while (start < command.size()) {
    const std::size_t space = command.find(' ', start);
    const std::size_t stop = space == std::string_view::npos ? command.size() : space;
    if (stop > start) arguments.emplace_back(command.substr(start, stop - start));
    start = stop + 1;
  }
  return arguments;
}

nlohmann::json make_nccl_tests_json(const nlohmann::json& report, const NcclTestsJsonContext& context) {
  const nlohmann::json& machine = report.at("machine");
  const std::optional<std::string> nccl_version =
      machine.contains("nccl_version") && machine.at("nccl_version").is_string()
          ? std::optional(machine.at("nccl_version").get<std::string>())
          : std::nullopt;
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json by_algorithm = nlohmann::json::object();
  std::int64_t failed = 0;
  double busbw_sum = 0;
  std::size_t lines = 0;
  const int iterations = report.at("config").at("iters").get<int>();
  for (const NcclTestsTable& table : nccl_tests_tables(report)) {
    by_algorithm[table.algorithm] = table.average_busbw_gbps;
    failed += table.failed_results;
    busbw_sum += table.average_busbw_gbps * static_cast<double>(2 * table.lines.size());
    lines += table.lines.size();
    for (const NcclTestsLine& line : table.lines)
      results.push_back({{"size", line.size_bytes},
                         {"count", line.count},
                         {"type", line.type},
                         {"redop", line.redop},
                         {"root", fmt::sprintf("%6d", line.root)},
                         {"out_of_place", figures_json(line.out_of_place)},
                         {"in_place", figures_json(line.in_place)},
                         {"actual_iterations", line.iterations > 0 ? line.iterations : iterations},
                         {"experiment_name", table.algorithm}});
  }
  nlohmann::json document = {{"version", nccl_tests_json_version},
                             {"start_time", nccl_tests_time(report.at("created").get<std::string>())},
                             {"args", command_arguments(report.at("command").get<std::string>())},
                             {"env", nlohmann::json::array()},
                             {"nccl_version", nccl_version_code(nccl_version)},
                             {"config", config_json(report, context.gpus)},
                             {"results", std::move(results)},
                             {"out_of_bounds", {{"count", failed}, {"okay", json_bool(failed == 0)}}},
                             {"average_bus_bandwidth",
                              {{"bandwidth", lines > 0 ? busbw_sum / static_cast<double>(2 * lines) : 0.0},
                               {"okay", "unchecked"}}},
                             {"errors", nlohmann::json::array()},
                             {"end_time", context.end_time}};
  document["ringlab"] = {{"report_schema", report.at("schema")},
                         {"complete", report.at("complete")},
                         {"backend", report.at("config").at("backend")},
                         {"nranks", report.at("config").at("nranks")},
                         {"experiment_name", "the algorithm (config.algorithms of ringlab's report)"},
                         {"average_bus_bandwidth_by_algorithm", std::move(by_algorithm)}};
  return document;
}

}  // namespace ringlab::report
