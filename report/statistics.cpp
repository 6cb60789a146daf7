#include "report/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ringlab::report {

namespace {

// P(B <= k) for B ~ Binomial(n, 1/2), k <= (n - 1) / 2 (the lower tail, where each term is
// smaller than the next): summed from k down until the terms no longer count.
double binomial_half_lower_tail(std::int64_t n, std::int64_t k) {
  if (k < 0) return 0.0;
  const auto nn = static_cast<double>(n);
  auto kk = static_cast<double>(k);
  double term = std::exp(std::lgamma(nn + 1) - std::lgamma(kk + 1) - std::lgamma(nn - kk + 1) - nn * std::log(2.0));
  double sum = 0;
  for (std::int64_t i = k; i >= 0 && term > 0; --i) {
    sum += term;
    if (term < sum * 1e-18) break;
    kk = static_cast<double>(i);
    term *= kk / (nn - kk + 1);  // pmf(i - 1) = pmf(i) * i / (n - i + 1)
  }
  return std::min(sum, 0.5);
}

}  // namespace

double median_interval_coverage(std::int64_t n, std::int64_t j) {
  return std::clamp(1.0 - 2.0 * binomial_half_lower_tail(n, j - 1), 0.0, 1.0);
}

std::int64_t median_interval_rank(std::int64_t n, double confidence) {
  const std::int64_t highest = (n + 1) / 2;
  if (n < 1 || highest < 1) return 1;
  // Start near the normal approximation, then step to the exact answer.
  const double guess = std::floor(static_cast<double>(n) / 2.0 - std::sqrt(static_cast<double>(n)));
  std::int64_t j = std::clamp(static_cast<std::int64_t>(guess), std::int64_t{1}, highest);
  while (j > 1 && median_interval_coverage(n, j) < confidence) --j;
  while (j < highest && median_interval_coverage(n, j + 1) >= confidence) ++j;
  return j;
}

MedianInterval median_interval(const std::vector<double>& sorted, double confidence) {
  if (sorted.empty()) return {};
  const auto n = static_cast<std::int64_t>(sorted.size());
  const std::int64_t j = median_interval_rank(n, confidence);
  return {sorted[static_cast<std::size_t>(j - 1)], sorted[static_cast<std::size_t>(n - j)],
          median_interval_coverage(n, j)};
}

double nearest_rank_quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

TimeStats summarise(double loop_seconds, const std::vector<double>& samples_seconds) {
  TimeStats stats;
  if (samples_seconds.empty()) return stats;
  std::vector<double> sorted = samples_seconds;
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(sorted.size());
  auto at_rank = [&](double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * n));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1] * 1e6;
  };
  stats.min_us = sorted.front() * 1e6;
  stats.p50_us = at_rank(0.5);
  stats.p99_us = at_rank(0.99);
  stats.max_us = sorted.back() * 1e6;
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  // Rounding in the sum may put the mean of equal samples a hair outside them; it is between
  // min and max by definition.
  stats.avg_us = std::clamp(mean * 1e6, stats.min_us, stats.max_us);
  double variance = 0;
  for (double value : sorted) variance += (value - mean) * (value - mean);
  stats.cv = mean > 0 ? std::sqrt(variance / n) / mean : 0.0;
  stats.loop_avg_us = loop_seconds / n * 1e6;
  MedianInterval interval = median_interval(sorted, median_interval_confidence);
  interval.low *= 1e6;
  interval.high *= 1e6;
  stats.p50_ci95 = interval;
  return stats;
}

SkewStats summarise_skew(const std::vector<double>& skew_seconds) {
  if (skew_seconds.empty()) return {};
  const auto [lowest, highest] = std::minmax_element(skew_seconds.begin(), skew_seconds.end());
  return {*lowest * 1e6, nearest_rank_quantile(skew_seconds, 0.5) * 1e6, *highest * 1e6};
}

}  // namespace ringlab::report
