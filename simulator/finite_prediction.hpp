// The last check before a prediction is printed or written: a time that is not finite (inf from
// a bandwidth near 0, nan from inf - inf) would make a report validate_report.py refuses and an
// "inf%" error in compare. The topology's ranges (topology/physical_ranges.hpp) keep it from
// happening; this names the row if it still does.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string_view>

namespace ringlab::simulator {

inline double finite_prediction(double seconds, std::string_view row) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw std::runtime_error(fmt::format(
        "the prediction for {} is {} s, not a finite time; check the topology's bandwidths, latencies and gamma "
        "(docs/topology-format.md, \"Ranges\")",
        row, seconds));
  return seconds;
}

}  // namespace ringlab::simulator
