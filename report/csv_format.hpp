// `ringlab bench --csv FILE`: one CSV row per result of a ringlab.bench/1 report (algorithm, type,
// op, size, placement), every statistic a column. The rows are flattened generically, nested keys
// joined with '_' (time_us.p50 -> time_us_p50), so a statistic added to the report appears here
// without a change. Pure functions (docs/bench.md#output-formats).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ringlab::report {

// A JSON object's leaves in order: nested objects' keys joined to their parent's with '_'; an
// array, a string, a number, a boolean or null is one leaf.
std::vector<std::pair<std::string, nlohmann::json>> flatten_object(const nlohmann::json& object);

// One CSV field (RFC 4180): numbers as JSON writes them (shortest exact form), booleans true/false,
// null empty, arrays as their JSON text; quoted when it holds a comma, a quote or a line break.
std::string csv_field(const nlohmann::json& value);

// The header (config.nranks and config.backend, then the row's algorithm, type, redop, size_bytes,
// count and placement, then every other row key in first-seen order)
// and one line per result; a row without some key leaves that field empty. Lines end with "\n".
std::string report_csv(const nlohmann::json& report);

}  // namespace ringlab::report
