#include "calibration_record.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "topology_io.hpp"

namespace ringlab::calibration {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(fmt::format("calibration record: {}: {}", where, what));
}

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object()) fail(where, "expected a JSON object");
  if (!object.contains(key)) fail(where, fmt::format("missing field \"{}\"", key));
  return object.at(key);
}

const nlohmann::json& array_member(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& value = member(object, key, where);
  if (!value.is_array() || value.empty()) fail(fmt::format("{}.{}", where, key), "expected a non-empty array");
  return value;
}

double positive(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& value = member(object, key, where);
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0)
    fail(fmt::format("{}.{}", where, key), fmt::format("is {}; expected a number > 0", value.dump()));
  return value.get<double>();
}

std::int64_t positive_integer(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& value = member(object, key, where);
  if (!value.is_number_integer() || value.get<std::int64_t>() <= 0)
    fail(fmt::format("{}.{}", where, key), fmt::format("is {}; expected an integer > 0", value.dump()));
  return value.get<std::int64_t>();
}

// object.ranks: the two ranks [a, b] of a measured pair.
std::pair<int, int> rank_pair(const nlohmann::json& object, const std::string& where) {
  const nlohmann::json& ranks = member(object, "ranks", where);
  if (!ranks.is_array() || ranks.size() != 2 || !ranks[0].is_number_integer() || !ranks[1].is_number_integer())
    fail(where + ".ranks", "expected two rank numbers [a, b]");
  return {ranks[0].get<int>(), ranks[1].get<int>()};
}

}  // namespace

RecordedCalibration measurements_from_record(const nlohmann::json& record) {
  RecordedCalibration recorded;
  const nlohmann::json& pairs = array_member(member(record, "ping_pong", "(record)"), "pairs", "ping_pong");
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::string where = fmt::format("ping_pong.pairs[{}]", p);
    const auto [first, second] = rank_pair(pairs[p], where);
    PairMeasurement pair{first, second, {}};
    const nlohmann::json& samples = array_member(pairs[p], "samples", where);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::string at = fmt::format("{}.samples[{}]", where, i);
      pair.samples.push_back({positive_integer(samples[i], "bytes", at),
                              static_cast<int>(positive_integer(samples[i], "iterations", at)),
                              positive(samples[i], "one_way_median_us", at) * 1e-6,
                              positive(samples[i], "one_way_min_us", at) * 1e-6});
    }
    recorded.measurements.pairs.push_back(std::move(pair));
  }
  const nlohmann::json& concurrent = member(record, "concurrent", "(record)");
  recorded.measurements.concurrent.active_ranks = static_cast<int>(positive_integer(concurrent, "active_ranks", "concurrent"));
  const nlohmann::json& streaming = array_member(concurrent, "samples", "concurrent");
  for (std::size_t i = 0; i < streaming.size(); ++i) {
    const std::string at = fmt::format("concurrent.samples[{}]", i);
    recorded.measurements.concurrent.samples.push_back(
        {positive_integer(streaming[i], "bytes", at), static_cast<int>(positive_integer(streaming[i], "iterations", at)),
         positive(streaming[i], "slowest_rank_median_us", at) * 1e-6,
         positive(streaming[i], "aggregate_bytes_per_second", at)});
  }
  const nlohmann::json& reduce = array_member(member(record, "reduce", "(record)"), "samples", "reduce");
  for (std::size_t i = 0; i < reduce.size(); ++i) {
    const std::string at = fmt::format("reduce.samples[{}]", i);
    recorded.measurements.reduce.push_back({positive_integer(reduce[i], "bytes", at),
                                            static_cast<int>(positive_integer(reduce[i], "iterations", at)),
                                            positive(reduce[i], "median_us", at) * 1e-6,
                                            reduce[i].contains("copy_median_us") ? positive(reduce[i], "copy_median_us", at) * 1e-6
                                                                                 : 0.0});
  }
  if (record.contains("waiting_mates")) {
    const nlohmann::json& mates = record.at("waiting_mates");
    std::tie(recorded.measurements.waiting_mates.first, recorded.measurements.waiting_mates.second) =
        rank_pair(mates, "waiting_mates");
    const nlohmann::json& samples = array_member(mates, "samples", "waiting_mates");
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::string at = fmt::format("waiting_mates.samples[{}]", i);
      recorded.measurements.waiting_mates.samples.push_back({positive_integer(samples[i], "bytes", at),
                                                             positive(samples[i], "sleeping_one_way_us", at) * 1e-6,
                                                             positive(samples[i], "polling_one_way_us", at) * 1e-6});
    }
  }
  recorded.cores = static_cast<int>(positive_integer(member(record, "parameters", "(record)"), "cores", "parameters"));
  recorded.endpoints = static_cast<int>(positive_integer(record, "endpoints", "(record)"));
  if (record.contains("rank_cpus")) {
    const nlohmann::json& lists = array_member(record, "rank_cpus", "(record)");
    for (std::size_t r = 0; r < lists.size(); ++r) {
      if (!lists[r].is_string()) fail(fmt::format("rank_cpus[{}]", r), fmt::format("is {}; expected a CPU list like \"0-3,6\"", lists[r].dump()));
      recorded.rank_cpus.push_back(lists[r].get<std::string>());
    }
  }
  recorded.record = record;
  return recorded;
}

RecordedCalibration read_calibration_file(const std::string& path) {
  const nlohmann::json document = read_json_file(path, "calibration report");
  try {
    if (!document.is_object() || !document.contains("calibration"))
      throw std::invalid_argument(
          "has no \"calibration\" record; pass a file written by 'ringlab calibrate --json' (with its measurements)");
    if (!document.at("calibration").is_object() || !document.at("calibration").contains("ping_pong"))
      throw std::invalid_argument(
          "its \"calibration\" record holds no measurements (no \"ping_pong\"); pass a file written by 'ringlab "
          "calibrate --json', not by 'topology detect' or by hand");
    return measurements_from_record(document.at("calibration"));
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("{}: {}", path, error.what()));
  }
}

}  // namespace ringlab::calibration
