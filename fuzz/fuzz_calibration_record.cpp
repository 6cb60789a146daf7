// Fuzz target: the calibration record reader of `ringlab calibrate --from-report`
// (calibration::measurements_from_record, after io::parse_json_text as the file reader does).
// Steps: parse the input as one whole JSON document; read its "calibration" object (or the
// document itself); std::invalid_argument is the answer to bad input. An accepted record must
// hold only values within the documented ranges, equal to the JSON's (no integer was narrowed):
// a pair's ranks distinct and >= 0, sizes in [1, 2^40], times finite and > 0, cores and
// endpoints as written.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "calibration/calibration_record.hpp"
#include "fuzz/fuzz_json_input.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

bool time_ok(double seconds) { return std::isfinite(seconds) && seconds > 0 && seconds <= 1e3; }

void check_accepted(const nlohmann::json& record, const ringlab::calibration::RecordedCalibration& read) {
  require(record.at("endpoints").get<std::int64_t>() == read.endpoints && read.endpoints >= 1);
  require(record.at("parameters").at("cores").get<std::int64_t>() == read.cores && read.cores >= 1);
  for (const ringlab::calibration::PairMeasurement& pair : read.measurements.pairs) {
    require(pair.first >= 0 && pair.second >= 0 && pair.first != pair.second);
    for (const auto& sample : pair.samples)
      require(sample.bytes >= 1 && sample.bytes <= (std::int64_t{1} << 40) && sample.iterations >= 1 &&
              time_ok(sample.one_way_median_seconds) && time_ok(sample.one_way_min_seconds));
  }
  const std::int64_t ranks = record.contains("ranks_measured") ? record.at("ranks_measured").get<std::int64_t>() : 1 << 20;
  for (const ringlab::calibration::PairMeasurement& pair : read.measurements.pairs)
    require(pair.first < ranks && pair.second < ranks);
  require(read.measurements.concurrent.active_ranks <= ranks);
  require(read.measurements.concurrent.active_ranks >= 1 &&
          record.at("concurrent").at("active_ranks").get<std::int64_t>() == read.measurements.concurrent.active_ranks);
  for (const auto& sample : read.measurements.reduce)
    require(sample.bytes >= 1 && sample.bytes <= (std::int64_t{1} << 40) && time_ok(sample.median_seconds));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<nlohmann::json> parsed = ringlab::fuzz::parse_fuzz_json(data, size);
  if (!parsed) return 0;
  const nlohmann::json& document = *parsed;
  const nlohmann::json& record =
      document.is_object() && document.contains("calibration") ? document.at("calibration") : document;
  try {
    check_accepted(record, ringlab::calibration::measurements_from_record(record));
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
