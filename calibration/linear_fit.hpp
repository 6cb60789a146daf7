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

#include <span>
#include <utility>
#include <vector>

#include "sweep.hpp"

namespace ringlab::calibration {

struct Sample {
  double x = 0;  // e.g. bytes
  double t = 0;  // seconds, > 0
};

struct LinearFit {
  double intercept = 0;
  double slope = 0;
  bool intercept_clamped = false;          // step 2 happened
  std::vector<double> relative_residuals;  // per sample, in input order
  double median_abs_residual = 0;
  double max_abs_residual = 0;
};

// Throws std::invalid_argument with fewer than two samples of different x, a time <= 0 or not
// finite, or when the best slope is not positive (times that do not grow with size).
LinearFit fit_relative(std::span<const Sample> samples);

// The slope alone, the intercept held at `intercept`, in relative error over `samples`:
// slope = sum w x (t - intercept) / sum w x^2 with w = 1 / t^2. Throws like fit_relative.
double fit_slope_relative(std::span<const Sample> samples, double intercept);

// Fills relative_residuals, median_abs_residual and max_abs_residual of `fit` over `samples`.
void set_residuals(LinearFit& fit, std::span<const Sample> samples);

// The nearest-rank median (bench's p50), 0 for no values.
inline double median(std::vector<double> values) { return bench::nearest_rank_quantile(std::move(values), 0.5); }

}  // namespace ringlab::calibration
