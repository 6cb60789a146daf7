#include "calibration/linear_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ringlab::calibration {

namespace {

void check_samples(std::span<const Sample> samples) {
  if (samples.size() < 2) throw std::invalid_argument("a linear fit needs at least two samples");
  for (const Sample& sample : samples)
    if (!std::isfinite(sample.t) || sample.t <= 0 || !std::isfinite(sample.x))
      throw std::invalid_argument(fmt::format("cannot fit a time of {} s at x = {}", sample.t, sample.x));
  const bool all_same_x = std::all_of(samples.begin(), samples.end(),
                                      [&](const Sample& sample) { return sample.x == samples.front().x; });
  if (all_same_x) throw std::invalid_argument("a linear fit needs samples at two different sizes at least");
}

}  // namespace

LinearFit relative_least_squares(std::span<const Sample> samples) {
  check_samples(samples);
  long double s = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (const Sample& sample : samples) {
    const long double w = 1.0L / (static_cast<long double>(sample.t) * sample.t);
    s += w;
    sx += w * sample.x;
    sxx += w * sample.x * sample.x;
    st += w * sample.t;
    sxt += w * sample.x * sample.t;
  }
  LinearFit fit;
  const long double determinant = s * sxx - sx * sx;
  long double intercept = (sxx * st - sx * sxt) / determinant;
  long double slope = (s * sxt - sx * st) / determinant;
  if (intercept < 0) {
    intercept = 0;
    slope = sxt / sxx;
    fit.intercept_clamped = true;
  }
  fit.intercept = static_cast<double>(intercept);
  fit.slope = static_cast<double>(slope);
  return fit;
}

LinearFit fit_relative(std::span<const Sample> samples) {
  LinearFit fit = relative_least_squares(samples);
  if (!(fit.slope > 0))
    throw FitError(fmt::format("the times do not grow with size (least-squares slope {:.4g} s/B): {}", fit.slope,
                               describe_samples(samples)));
  set_residuals(fit, samples);
  return fit;
}

double slope_relative(std::span<const Sample> samples, double intercept) {
  if (samples.empty()) throw std::invalid_argument("a slope fit needs at least one sample");
  long double numerator = 0, denominator = 0;
  for (const Sample& sample : samples) {
    if (!std::isfinite(sample.t) || sample.t <= 0)
      throw std::invalid_argument(fmt::format("cannot fit a time of {} s at x = {}", sample.t, sample.x));
    const long double w = 1.0L / (static_cast<long double>(sample.t) * sample.t);
    numerator += w * sample.x * (sample.t - intercept);
    denominator += w * sample.x * sample.x;
  }
  return static_cast<double>(denominator > 0 ? numerator / denominator : 0);
}

double fit_slope_relative(std::span<const Sample> samples, double intercept) {
  const double slope = slope_relative(samples, intercept);
  if (!(slope > 0))
    throw FitError(fmt::format("the times do not grow with size (least-squares slope {:.4g} s/B through {:.3f} us): {}",
                               slope, intercept * 1e6, describe_samples(samples)));
  return slope;
}

std::string describe_samples(std::span<const Sample> samples) {
  std::string text;
  for (const Sample& sample : samples)
    text += fmt::format("{}{:.0f} B {:.3f} us", text.empty() ? "" : ", ", sample.x, sample.t * 1e6);
  return text;
}

std::string_view describe(SlopeMethod method) {
  return method == SlopeMethod::least_squares
             ? "relative least squares"
             : "Theil-Sen: the median of pairwise slopes (least squares found no positive slope)";
}

void set_residuals(LinearFit& fit, std::span<const Sample> samples) {
  fit.relative_residuals.clear();
  std::vector<double> magnitudes;
  for (const Sample& sample : samples) {
    const double residual = (fit.intercept + fit.slope * sample.x - sample.t) / sample.t;
    fit.relative_residuals.push_back(residual);
    magnitudes.push_back(std::abs(residual));
  }
  fit.max_abs_residual = magnitudes.empty() ? 0 : *std::max_element(magnitudes.begin(), magnitudes.end());
  fit.median_abs_residual = median(std::move(magnitudes));
}

}  // namespace ringlab::calibration
