// The relative-error least squares of linear_fit.hpp made robust to the wild samples a loaded
// machine produces (issue 27; docs/calibration.md, "Noisy machines"). Now and then a ping-pong or
// reduce sample waits for a CPU, and its median comes out several times too slow (never too fast:
// interference only adds time). Least squares is pulled by such a sample, and a latency inflated
// by slow small sizes can leave no positive slope through it at all ("fitted slope <= 0").
//
// Chosen: least squares on the samples a Theil–Sen line accepts; Theil–Sen's slope itself only
// where that least squares still finds no positive slope. Why this rather than a residual rule on
// the least squares, or Theil–Sen alone:
//   - on clean data (nothing dropped) the result IS the least squares of before, bit for bit, so
//     the committed calibrations refit to the same parameters;
//   - outliers are judged against a line they cannot pull: Theil–Sen (the median of the slopes
//     between every two samples of different size) keeps its slope until about 29 % of the
//     samples are wild, where a rule on the least-squares residuals is masked by the very
//     outliers the fit leaned towards;
//   - only samples SLOWER than that line are dropped: a faster one is the machine's own
//     behaviour (a cache-resident size), never load;
//   - Theil–Sen's slope is made of differences of times, so it does not depend on a latency
//     inflated by slow small sizes: the fallback where least squares through it fails.
// The rule (slow_outliers): with d_i = ln(t_i / line(x_i)) and s = median |d_i| (the typical
// misfit), a sample is dropped when d_i > max(ln 2, 4 s): at least twice as slow as the line, and
// far beyond how the other samples scatter around it. Repeated against a Theil–Sen line of what is
// left until nothing more is dropped, never more than half of the samples.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "calibration/linear_fit.hpp"

namespace ringlab::calibration {

// Below this factor over the reference line no sample is an outlier, however tightly the others
// fit ...
inline constexpr double min_outlier_factor = 2.0;
// ... nor within this many typical misfits (median |ln(t / line)|) of it: a machine's cache edge
// puts ping-pong samples several times off a Theil–Sen line of the sizes >= 64 KiB, but within a
// few typical misfits, and those must not be dropped.
inline constexpr double outlier_misfits = 4.0;

// The median of the slopes (t_j - t_i) / (x_j - x_i) over every two samples of different x (the
// mean of the two middle ones for an even count); nullopt when every x is the same.
std::optional<double> theil_sen_slope(std::span<const Sample> samples);

// Indices (ascending) of the samples the rule above drops against the line intercept + slope x,
// the slowest first when more than half would go (at most half of them are dropped). The line
// must be positive at every sample.
std::vector<std::size_t> slow_outliers(std::span<const Sample> samples, double intercept, double slope);

// fit_relative (intercept and slope free, a negative intercept clamped to 0) on the samples the
// rule keeps against a Theil–Sen line (its intercept the median of t - slope x, at least 0). When
// that least squares finds no positive slope, the Theil–Sen line of the kept samples (slope_method
// says so). Residuals are of every sample, dropped ones included. Throws FitError naming every
// sample when neither slope is positive, std::invalid_argument for input fit_relative refuses.
LinearFit fit_relative_robust(std::span<const Sample> samples);

// The slope with the intercept held, like fit_slope_relative, on the samples the rule keeps
// against intercept + (Theil–Sen slope) x; that slope itself when the least squares is not
// positive. `dropped` holds indices into `samples`.
struct RobustSlope {
  double slope = 0;
  std::vector<DroppedSample> dropped;
  bool theil_sen = false;
};
RobustSlope fit_slope_robust(std::span<const Sample> samples, double intercept);

}  // namespace ringlab::calibration
