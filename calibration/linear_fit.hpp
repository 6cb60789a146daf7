// Fitting t(x) = intercept + slope * x to measured times by least squares in RELATIVE error:
// minimise sum_i ((intercept + slope * x_i - t_i) / t_i)^2, i.e. weighted least squares with
// weights 1 / t_i^2. Message sizes span seven orders of magnitude (8 B .. 64 MiB); ordinary least
// squares on raw times is decided by the largest sizes and leaves the intercept (latency) free to
// be anything, even negative. Relative error gives every size the same say, which is also how
// `ringlab compare` judges predictions. Steps:
//   1. weighted normal equations (long double) for intercept and slope;
//   2. a negative intercept is not a latency: refit through the origin (intercept = 0) and say so;
//   3. residuals (fitted - measured) / measured per sample.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/statistics.hpp"

namespace ringlab::calibration {

struct Sample {
  double x = 0;  // e.g. bytes
  double t = 0;  // seconds, > 0
};

// A sample left out of a fit as a slow outlier (robust_fit.hpp).
struct DroppedSample {
  std::size_t index = 0;   // in the samples given to the fit
  Sample sample;
  double line_t = 0;       // the reference line's time there (the sample is t / line_t times slower)
};

// How the slope was found (robust_fit.hpp).
enum class SlopeMethod { least_squares, theil_sen };

struct LinearFit {
  double intercept = 0;
  double slope = 0;
  bool intercept_clamped = false;          // step 2 happened
  std::vector<double> relative_residuals;  // per sample, in input order
  double median_abs_residual = 0;
  double max_abs_residual = 0;
  std::vector<DroppedSample> dropped;      // robust fits only: samples left out as slow outliers
  SlopeMethod slope_method = SlopeMethod::least_squares;
};

// Samples that fit no line with a positive slope (times that do not grow with size). Its message
// lists the samples; callers add which measurement they were and what to pass.
class FitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Steps 1 and 2 without the slope check: the slope may come out <= 0. Throws std::invalid_argument
// with fewer than two samples of different x, or a time <= 0 or not finite.
LinearFit relative_least_squares(std::span<const Sample> samples);

// relative_least_squares and step 3. Throws like it, and FitError when the best slope is not
// positive.
LinearFit fit_relative(std::span<const Sample> samples);

// The slope alone, the intercept held at `intercept`, in relative error over `samples`:
// slope = sum w x (t - intercept) / sum w x^2 with w = 1 / t^2; may be <= 0. Throws
// std::invalid_argument for no sample or a time <= 0 or not finite.
double slope_relative(std::span<const Sample> samples, double intercept);

// slope_relative, and FitError when the slope is not positive.
double fit_slope_relative(std::span<const Sample> samples, double intercept);

// "131072 B 812.3 us, 524288 B 640.1 us" (x as bytes, t in microseconds), for error messages.
std::string describe_samples(std::span<const Sample> samples);

// "relative least squares" or "Theil-Sen (...)", for the calibration record.
std::string_view describe(SlopeMethod method);

// Fills relative_residuals, median_abs_residual and max_abs_residual of `fit` over `samples`.
void set_residuals(LinearFit& fit, std::span<const Sample> samples);

// The nearest-rank median (a report row's p50, report/statistics.hpp), 0 for no values.
inline double median(std::vector<double> values) { return report::nearest_rank_quantile(std::move(values), 0.5); }

}  // namespace ringlab::calibration
