// Fuzz target: `ringlab compare`'s reader of a ringlab.bench/1 report
// (simulator::measured_report_from_json, after io::parse_json_text as read_measured_report does).
// Steps: parse the input as one whole JSON document; read it as a measured report;
// std::invalid_argument is the answer to bad input. An accepted report must hold only values
// within the documented ranges and equal to the JSON's (no integer narrowed): nranks in
// [1, 2^20], sizes and counts in [0, 2^40], times finite and > 0, and names without control
// characters (they are printed).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "simulator/compare.hpp"
#include "fuzz/fuzz_json_input.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

bool printable(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<nlohmann::json> parsed = ringlab::fuzz::parse_fuzz_json(data, size);
  if (!parsed) return 0;
  const nlohmann::json& document = *parsed;
  ringlab::simulator::MeasuredReport report;
  try {
    report = ringlab::simulator::measured_report_from_json(document, "fuzz-input.json");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  require(report.nranks >= 1 && report.nranks <= (std::int64_t{1} << 20) &&
          document.at("config").at("nranks").get<std::int64_t>() == report.nranks);
  require(report.segment_bytes >= 0 && report.segment_bytes <= (std::int64_t{1} << 40));
  for (const std::string& cpus : report.rank_cpus) require(printable(cpus));
  for (const ringlab::simulator::MeasuredRow& row : report.rows) {
    require(row.size_bytes >= 0 && row.size_bytes <= (std::int64_t{1} << 40) && row.count >= 0 &&
            row.count <= (std::int64_t{1} << 40));
    require(std::isfinite(row.measured_seconds) && row.measured_seconds > 0 && row.measured_seconds <= 1e3);
    require(printable(row.algorithm));
  }
  return 0;
}
