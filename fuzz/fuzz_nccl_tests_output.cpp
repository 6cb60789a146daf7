// Fuzz target: `ringlab compare`'s reader of nccl-tests' all_reduce_perf text output
// (report::nccl_tests_text_report, then simulator::measured_report_from_json as
// read_measured_report does). std::invalid_argument is the answer to bad input. An accepted
// output must give a report compare reads, whose rows hold only sizes and counts in [0, 2^40],
// positive finite times and printable algorithm names.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "report/nccl_tests_input.hpp"
#include "simulator/compare.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json document;
  try {
    document = ringlab::report::nccl_tests_text_report(text, "fuzz-input.txt", "ring");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  ringlab::simulator::MeasuredReport report;
  try {
    report = ringlab::simulator::measured_report_from_json(document, "fuzz-input.txt");
  } catch (const std::invalid_argument&) {
    return 0;  // e.g. more ranks than compare takes, or a time past its range
  }
  require(!report.rows.empty() && report.rows.size() % 2 == 0);
  for (const ringlab::simulator::MeasuredRow& row : report.rows) {
    require(row.size_bytes >= 0 && row.size_bytes <= (std::int64_t{1} << 40) && row.count >= 0 &&
            row.count <= (std::int64_t{1} << 40));
    require(std::isfinite(row.measured_seconds) && row.measured_seconds > 0);
    for (const char c : row.algorithm) require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f);
  }
  return 0;
}
