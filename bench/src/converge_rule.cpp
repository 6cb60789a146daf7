#include "bench/src/converge_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/checked_number.hpp"

namespace ringlab::bench {

ConvergeRule parse_converge(std::string_view text) {
  const std::string usage = "; give --converge REL[,MAX_SECONDS], e.g. --converge 0.05 or --converge 0.05,10";
  const std::size_t comma = text.find(',');
  const std::string_view rel_text = text.substr(0, comma);
  ConvergeRule rule;
  try {
    rule.rel = io::parse_checked_number(rel_text, "--converge REL (the interval's half-width over the median)",
                                        io::NumberRange(0, 1, "", true, true));
    if (comma == std::string_view::npos) {
      rule.max_seconds = default_converge_max_seconds;
    } else {
      const std::string_view seconds_text = text.substr(comma + 1);
      if (seconds_text.find(',') != std::string_view::npos)
        throw std::invalid_argument(
            fmt::format("--converge '{}' has more than two parts", std::string(text)));
      rule.max_seconds = io::parse_checked_number(seconds_text, "--converge MAX_SECONDS (per size, algorithm and placement)",
                                                  io::NumberRange(0, max_converge_seconds, "s", true, false));
    }
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(error.what() + usage);
  }
  return rule;
}

std::string describe(const ConvergeRule& rule) { return fmt::format("{:g},{:g}", rule.rel, rule.max_seconds); }

bool interval_converged(const report::MedianInterval& interval, double median, const ConvergeRule& rule) {
  return interval.coverage >= report::median_interval_confidence && (interval.high - interval.low) / 2.0 <= rule.rel * median;
}

ConvergeDecision decide_convergence(const report::TimeStats& stats, std::int64_t calls, double elapsed_seconds,
                                    const ConvergeRule& rule) {
  if (stats.p50_ci95 && interval_converged(*stats.p50_ci95, stats.p50_us, rule)) return {true, true, 0};
  const double left = rule.max_seconds - elapsed_seconds;
  if (calls < 1 || left <= 0 || calls >= max_converge_calls) return {true, false, 0};
  const double per_call = elapsed_seconds / static_cast<double>(calls);
  const double fit = per_call > 0 ? std::floor(left / per_call) : static_cast<double>(calls);
  const std::int64_t next = std::min({calls, max_converge_calls - calls,
                                      static_cast<std::int64_t>(std::min(fit, static_cast<double>(max_converge_calls)))});
  if (next < 1) return {true, false, 0};
  return {false, false, next};
}

}  // namespace ringlab::bench
