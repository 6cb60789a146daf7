// The time statistics of a result row, all from one sample set: one sample per timed call (in
// `ringlab bench`, that call's time under the -a rule: max, mean or min over ranks, or rank 0's).
// Every figure of a row comes from that set, so min <= p50 <= p99 <= max and min <= avg <= max
// hold by construction. Also the quantile and median every other layer uses (compare, calibration).
// Pure functions only; the timing loop that feeds them is bench/src/sweep.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ringlab::report {

// A confidence interval of the median from order statistics: [x(j), x(n+1-j)] of the sorted
// samples, whose coverage is P(j <= B < n+1-j) = 1 - 2 P(B <= j-1) for B ~ Binomial(n, 1/2),
// whatever the distribution of the samples. `coverage` is that probability: at least the
// confidence asked for when n allows it (n >= 6 for 95 %), else the widest interval there is,
// [min, max], and its smaller coverage (0 for one sample).
struct MedianInterval {
  double low = 0;
  double high = 0;
  double coverage = 0;
};

// The 1-based rank j of the lower end of the narrowest symmetric order-statistic interval whose
// coverage is at least `confidence`; 1 (min and max) when no interval reaches it. n >= 1.
std::int64_t median_interval_rank(std::int64_t n, double confidence);
// 1 - 2 P(B <= j - 1), B ~ Binomial(n, 1/2): the coverage of [x(j), x(n+1-j)]. 1 <= j <= (n+1)/2.
double median_interval_coverage(std::int64_t n, std::int64_t j);
// The confidence of the median's interval in a row (p50_ci95): at least 95 % when n >= 6.
inline constexpr double median_interval_confidence = 0.95;
// The interval itself, from samples sorted ascending (empty: all zero).
MedianInterval median_interval(const std::vector<double>& sorted, double confidence);

// Nearest-rank quantile q in (0, 1]: the smallest value that at least q of the values do not
// exceed (p50, p99 of reports; medians and p90s of calibration and compare). 0 for no values.
double nearest_rank_quantile(std::vector<double> values, double q);

// The timing figures of one row, in microseconds (cv has no unit). Measured rows fill every
// field; predicted rows (ringlab simulate) only the first six.
struct TimeStats {
  double avg_us = 0;  // mean of the per-call samples
  double min_us = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
  double cv = 0;  // population standard deviation / mean of the samples
  // nccl-tests' figure: the timed loop's elapsed time (aggregated over ranks by -a) / calls.
  // Not a statistic of the samples: loop overhead and ranks' drift put it outside [min, max].
  std::optional<double> loop_avg_us = std::nullopt;
  std::optional<MedianInterval> p50_ci95 = std::nullopt;  // in us; coverage as computed
};

// Every statistic of `samples_seconds` (one per timed call), and `loop_seconds` / calls as
// loop_avg. No samples: all zero, no interval.
TimeStats summarise(double loop_seconds, const std::vector<double>& samples_seconds);

// How late the last rank entered a call after the first, min / median / max over the calls (us).
struct SkewStats {
  double min_us = 0;
  double p50_us = 0;
  double max_us = 0;
};
SkewStats summarise_skew(const std::vector<double>& skew_seconds);

}  // namespace ringlab::report
