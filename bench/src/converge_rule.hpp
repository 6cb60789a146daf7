// `ringlab bench --converge REL[,MAX_SECONDS]`: the rule that decides when a row has been timed
// long enough, from the row's statistics so far (report/statistics.hpp). Part of the sweep driver,
// so it lives with the bench; pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "report/statistics.hpp"

namespace ringlab::bench {

// Time a (size, algorithm, placement) until the median's 95 % interval has a half-width
// (high - low) / 2 <= rel * median, or max_seconds are spent.
struct ConvergeRule {
  double rel = 0.05;
  double max_seconds = 10;
};
inline constexpr double default_converge_max_seconds = 10;
inline constexpr double max_converge_seconds = 86400;
// The most calls one row times under --converge (bounds the samples' memory: 8 MB a rank).
inline constexpr std::int64_t max_converge_calls = 1'000'000;
// Parses "REL" or "REL,MAX_SECONDS". Throws std::invalid_argument naming --converge, the bad
// part and the accepted range (0 < REL < 1, 0 < MAX_SECONDS <= 86400).
ConvergeRule parse_converge(std::string_view text);
std::string describe(const ConvergeRule& rule);  // "0.05,10" (the configuration agreement text)

// Whether an interval meets the rule: a full 95 % interval (coverage >= 0.95) with
// (high - low) / 2 <= rel * median.
bool interval_converged(const report::MedianInterval& interval, double median, const ConvergeRule& rule);

// Rank 0's decision after each batch of calls: stop (converged, the time spent, or the call cap
// reached) or time `next_calls` more. The next batch doubles the calls so far, cut to what fits
// in the time left at the mean call time so far; stop when not even one call fits.
struct ConvergeDecision {
  bool stop = true;
  bool converged = false;
  std::int64_t next_calls = 0;
};
ConvergeDecision decide_convergence(const report::TimeStats& stats, std::int64_t calls, double elapsed_seconds,
                                    const ConvergeRule& rule);

}  // namespace ringlab::bench
