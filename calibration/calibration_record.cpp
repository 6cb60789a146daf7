#include "calibration/calibration_record.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "io/checked_number.hpp"
#include "io/printable.hpp"
#include "topology/topology_io.hpp"

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

// The documented ranges of a record's fields (calibration_record.hpp).
constexpr std::int64_t max_ranks = std::int64_t{1} << 20;  // the topology's limit on endpoints
constexpr std::int64_t max_cores = 1 << 16;
constexpr std::int64_t max_message_bytes = std::int64_t{1} << 40;
constexpr std::int64_t max_iterations = (std::int64_t{1} << 31) - 1;
constexpr io::NumberRange microseconds{0, 1e9, "us", true};  // up to 1000 s
constexpr io::NumberRange bytes_per_second{1e3, 1e15, "B/s"};

// Each check below throws "calibration record: <path>: <value> is outside [...]".
double time_us(const nlohmann::json& object, const char* key, const std::string& where) {
  try {
    return io::check_json_number(member(object, key, where), fmt::format("{}.{}", where, key), microseconds);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("calibration record: {}", error.what()));
  }
}

double bandwidth(const nlohmann::json& object, const char* key, const std::string& where) {
  try {
    return io::check_json_number(member(object, key, where), fmt::format("{}.{}", where, key), bytes_per_second);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("calibration record: {}", error.what()));
  }
}

std::int64_t integer(const nlohmann::json& object, const char* key, const std::string& where, std::int64_t min,
                     std::int64_t max) {
  try {
    const std::string path = where == "(record)" ? std::string(key) : fmt::format("{}.{}", where, key);
    return io::check_json_integer(member(object, key, where), path, min, max);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("calibration record: {}", error.what()));
  }
}

std::int64_t message_bytes(const nlohmann::json& object, const std::string& where) {
  return integer(object, "bytes", where, 1, max_message_bytes);
}

int iterations(const nlohmann::json& object, const std::string& where) {
  return static_cast<int>(integer(object, "iterations", where, 1, max_iterations));
}

// pair[index], a rank in [0, ranks).
std::int64_t integer(const nlohmann::json& pair, std::size_t index, const std::string& where, std::int64_t ranks) {
  try {
    return io::check_json_integer(pair[index], fmt::format("{}[{}]", where, index), 0, ranks - 1);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("calibration record: {} (the ranks measured)", error.what()));
  }
}

// object.ranks: the two distinct ranks [a, b] of a measured pair, each in [0, ranks).
std::pair<int, int> rank_pair(const nlohmann::json& object, const std::string& where, std::int64_t ranks) {
  const nlohmann::json& pair = member(object, "ranks", where);
  if (!pair.is_array() || pair.size() != 2)
    fail(where + ".ranks", fmt::format("is {}; expected two rank numbers [a, b]", io::printable(pair.dump())));
  const auto first = static_cast<int>(integer(pair, 0, where + ".ranks", ranks));
  const auto second = static_cast<int>(integer(pair, 1, where + ".ranks", ranks));
  if (first == second) fail(where + ".ranks", fmt::format("is [{}, {}]; a pair needs two different ranks", first, second));
  return {first, second};
}

// A type or op name as name_of writes it (`parse` reads it), else the error names the field.
template <class Parse>
auto canonical_name(const nlohmann::json& object, const char* key, const std::string& where, Parse parse) {
  const nlohmann::json& value = member(object, key, where);
  const std::string path = fmt::format("{}.{}", where, key);
  if (!value.is_string()) fail(path, fmt::format("is {}; expected a name", io::printable(value.dump())));
  const std::string text = value.get<std::string>();
  std::optional<decltype(parse(text))> parsed;
  try {
    parsed = parse(text);
  } catch (const std::invalid_argument& error) {
    fail(path, error.what());
  }
  if (name_of(*parsed) != text)
    fail(path, fmt::format("write \"{}\" as ringlab calibrate does: \"{}\"", io::printable(text), name_of(*parsed)));
  return *parsed;
}

// The operand bytes and timed calls of a reduce-kernel table (kernel_timing.hpp) into `measurement`.
template <class Measurement>
void read_timing_sizes(const nlohmann::json& object, const std::string& where, Measurement& measurement) {
  measurement.in_cache_bytes = integer(object, "in_cache_operand_bytes", where, 1, max_message_bytes);
  measurement.out_of_cache_bytes = integer(object, "out_of_cache_operand_bytes", where, 1, max_message_bytes);
  measurement.in_cache_iterations = static_cast<int>(integer(object, "in_cache_iterations", where, 1, max_iterations));
  measurement.out_of_cache_iterations =
      static_cast<int>(integer(object, "out_of_cache_iterations", where, 1, max_iterations));
}

// reduce_by_type_op (type_op_reduce.hpp), written since 2026-12-06 22:00 UTC.
TypeOpReduceMeasurement type_op_reduce_from_record(const nlohmann::json& object) {
  const std::string where = "reduce_by_type_op";
  TypeOpReduceMeasurement measurement;
  read_timing_sizes(object, where, measurement);
  const nlohmann::json& samples = array_member(object, "samples", where);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::string at = fmt::format("{}.samples[{}]", where, i);
    measurement.samples.push_back({canonical_name(samples[i], "type", at, parse_data_type),
                                   canonical_name(samples[i], "op", at, parse_reduce_op),
                                   time_us(samples[i], "in_cache_median_us", at) * 1e-6,
                                   time_us(samples[i], "out_of_cache_median_us", at) * 1e-6});
  }
  return measurement;
}

// reduce_by_form (form_reduce.hpp), written since 2026-12-07 15:00 UTC.
FormReduceMeasurement form_reduce_from_record(const nlohmann::json& object, std::int64_t ranks) {
  const std::string where = "reduce_by_form";
  FormReduceMeasurement measurement;
  read_timing_sizes(object, where, measurement);
  const nlohmann::json& samples = array_member(object, "samples", where);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const std::string at = fmt::format("{}.samples[{}]", where, i);
    const nlohmann::json& form = member(samples[i], "form", at);
    const std::optional<Placement> parsed = form.is_string() ? placement_named(form.get<std::string>()) : std::nullopt;
    if (!parsed)
      fail(at + ".form", fmt::format("is {}; expected \"{}\" or \"{}\"", io::printable(form.dump()),
                                     name_of(Placement::in_place), name_of(Placement::out_of_place)));
    measurement.samples.push_back({*parsed, static_cast<int>(integer(samples[i], "ranks_reducing", at, 1, ranks)),
                                   time_us(samples[i], "in_cache_median_us", at) * 1e-6,
                                   time_us(samples[i], "out_of_cache_median_us", at) * 1e-6});
  }
  return measurement;
}

}  // namespace

RecordedCalibration measurements_from_record(const nlohmann::json& record) {
  RecordedCalibration recorded;
  // ranks_measured (written since 2026-12-03) bounds the ranks of pairs and of the streaming test.
  const std::int64_t ranks =
      record.is_object() && record.contains("ranks_measured") ? integer(record, "ranks_measured", "(record)", 2, max_ranks) : max_ranks;
  const nlohmann::json& pairs = array_member(member(record, "ping_pong", "(record)"), "pairs", "ping_pong");
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::string where = fmt::format("ping_pong.pairs[{}]", p);
    const auto [first, second] = rank_pair(pairs[p], where, ranks);
    PairMeasurement pair{first, second, {}};
    const nlohmann::json& samples = array_member(pairs[p], "samples", where);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::string at = fmt::format("{}.samples[{}]", where, i);
      pair.samples.push_back({message_bytes(samples[i], at), iterations(samples[i], at),
                              time_us(samples[i], "one_way_median_us", at) * 1e-6,
                              time_us(samples[i], "one_way_min_us", at) * 1e-6});
    }
    recorded.measurements.pairs.push_back(std::move(pair));
  }
  const nlohmann::json& concurrent = member(record, "concurrent", "(record)");
  recorded.measurements.concurrent.active_ranks = static_cast<int>(integer(concurrent, "active_ranks", "concurrent", 1, ranks));
  const nlohmann::json& streaming = array_member(concurrent, "samples", "concurrent");
  for (std::size_t i = 0; i < streaming.size(); ++i) {
    const std::string at = fmt::format("concurrent.samples[{}]", i);
    recorded.measurements.concurrent.samples.push_back(
        {message_bytes(streaming[i], at), iterations(streaming[i], at),
         time_us(streaming[i], "slowest_rank_median_us", at) * 1e-6,
         bandwidth(streaming[i], "aggregate_bytes_per_second", at)});
  }
  const nlohmann::json& reduce = array_member(member(record, "reduce", "(record)"), "samples", "reduce");
  for (std::size_t i = 0; i < reduce.size(); ++i) {
    const std::string at = fmt::format("reduce.samples[{}]", i);
    recorded.measurements.reduce.push_back({message_bytes(reduce[i], at), iterations(reduce[i], at),
                                            time_us(reduce[i], "median_us", at) * 1e-6,
                                            reduce[i].contains("copy_median_us") ? time_us(reduce[i], "copy_median_us", at) * 1e-6
                                                                                 : 0.0});
  }
  if (record.contains("waiting_mates")) {
    const nlohmann::json& mates = record.at("waiting_mates");
    std::tie(recorded.measurements.waiting_mates.first, recorded.measurements.waiting_mates.second) =
        rank_pair(mates, "waiting_mates", ranks);
    const nlohmann::json& samples = array_member(mates, "samples", "waiting_mates");
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::string at = fmt::format("waiting_mates.samples[{}]", i);
      recorded.measurements.waiting_mates.samples.push_back({message_bytes(samples[i], at),
                                                             time_us(samples[i], "sleeping_one_way_us", at) * 1e-6,
                                                             time_us(samples[i], "polling_one_way_us", at) * 1e-6});
    }
  }
  if (record.contains("reduce_by_type_op"))
    recorded.measurements.reduce_by_type_op = type_op_reduce_from_record(record.at("reduce_by_type_op"));
  if (record.contains("reduce_by_form"))
    recorded.measurements.reduce_by_form = form_reduce_from_record(record.at("reduce_by_form"), ranks);
  recorded.cores = static_cast<int>(integer(member(record, "parameters", "(record)"), "cores", "parameters", 1, max_cores));
  recorded.endpoints = static_cast<int>(integer(record, "endpoints", "(record)", 1, max_ranks));
  if (record.contains("receive_fragment_bytes"))
    integer(record, "receive_fragment_bytes", "(record)", 1, max_message_bytes);
  if (record.contains("rank_cpus")) {
    const nlohmann::json& lists = array_member(record, "rank_cpus", "(record)");
    for (std::size_t r = 0; r < lists.size(); ++r) {
      if (!lists[r].is_string())
        fail(fmt::format("rank_cpus[{}]", r),
             fmt::format("is {}; expected a CPU list like \"0-3,6\"", io::printable(lists[r].dump())));
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
    throw std::invalid_argument(fmt::format("{}: {}", io::printable(path), error.what()));
  }
}

}  // namespace ringlab::calibration
