// The creation time every ringlab report writes ("created"): one spelling for bench, simulate,
// calibrate, compare, topology, train and replay documents.
#pragma once

#include <string>

namespace ringlab::report {

// The time now, UTC, ISO 8601 with a Z (2026-12-02T14:40:00Z).
std::string utc_timestamp();

}  // namespace ringlab::report
