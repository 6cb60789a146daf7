// One result row of a sweep: one (algorithm, size, placement) measured by `ringlab bench` or
// priced by `ringlab simulate`, with its time statistics and bandwidths. The row a report's
// "results" entry and a table line are written from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "report/statistics.hpp"

namespace ringlab::report {

struct ResultRow {
  std::string algorithm;
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  bool in_place = false;
  int iterations = 0;  // timed calls (samples); 0 for predicted rows
  TimeStats time;     // every figure from one sample per call (statistics.hpp)
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::int64_t wrong = -1;  // -1 when checking is off
  // Device backends: time.* come from CUDA events; this is the timed loop by wall clock / calls.
  std::optional<double> wall_avg_us;
  // Measured rows: per call, how late the last rank entered it after the first (common clock).
  std::optional<SkewStats> rank_skew_us;
  // --converge: whether the median's interval met the rule; empty without --converge.
  std::optional<bool> converged;
  // Predicted rows of `ringlab simulate --link-stats`: bytes x links crossed summed over the sends,
  // the busiest directed link's bytes (simulator/link_traffic.hpp), and the all-reduce lower bound
  // (simulator/lower_bound.hpp).
  std::optional<double> total_link_bytes;
  std::optional<double> busiest_link_bytes;
  std::optional<double> lower_bound_us;
  // bench --algo auto: the algorithm and segment size the tuning table chose for this size.
  std::optional<std::string> auto_algorithm;
  std::int64_t auto_segment_bytes = 0;
};

}  // namespace ringlab::report
