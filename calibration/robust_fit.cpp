#include "calibration/robust_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <utility>

namespace ringlab::calibration {

namespace {

// The middle value, or the mean of the two middle ones of an even count; `values` not empty.
double middle(std::vector<double> values) {
  const std::size_t half = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half), values.end());
  const double upper = values[half];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half)) + upper) / 2;
}

struct Line {
  double intercept = 0;
  double slope = 0;
  double at(double x) const { return intercept + slope * x; }
};

// The reference line for what is left of the samples; nullopt: none (no two sizes, or no
// positive Theil–Sen slope), and nothing more is dropped.
using Reference = std::function<std::optional<Line>(std::span<const Sample>)>;

std::size_t distinct_sizes(std::span<const Sample> samples) {
  std::set<double> sizes;
  for (const Sample& sample : samples) sizes.insert(sample.x);
  return sizes.size();
}

std::vector<Sample> pick(std::span<const Sample> samples, const std::vector<std::size_t>& indices) {
  std::vector<Sample> picked;
  for (std::size_t index : indices) picked.push_back(samples[index]);
  return picked;
}

// The rule of robust_fit.hpp, repeated against a fresh reference line until nothing more goes.
// At most half of the samples are dropped, and at least `min_sizes` different x are kept.
std::vector<DroppedSample> drop_slow_outliers(std::span<const Sample> samples, const Reference& reference,
                                              std::size_t min_sizes) {
  std::vector<std::size_t> kept(samples.size());
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = i;
  const std::size_t min_kept = samples.size() - samples.size() / 2;
  std::vector<DroppedSample> dropped;
  while (kept.size() > min_kept) {
    const std::vector<Sample> left = pick(samples, kept);
    const std::optional<Line> line = reference(left);
    if (!line) break;
    std::vector<std::size_t> outliers = slow_outliers(left, line->intercept, line->slope);
    // The slowest first, as many as the limits allow.
    std::sort(outliers.begin(), outliers.end(), [&](std::size_t a, std::size_t b) {
      return left[a].t / line->at(left[a].x) > left[b].t / line->at(left[b].x);
    });
    outliers.resize(std::min(outliers.size(), kept.size() - min_kept));
    while (!outliers.empty()) {
      std::vector<std::size_t> remaining;
      for (std::size_t i = 0; i < left.size(); ++i)
        if (std::find(outliers.begin(), outliers.end(), i) == outliers.end()) remaining.push_back(kept[i]);
      if (distinct_sizes(pick(samples, remaining)) >= min_sizes) break;
      outliers.pop_back();
    }
    if (outliers.empty()) break;
    std::vector<std::size_t> remaining;
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (std::find(outliers.begin(), outliers.end(), i) == outliers.end())
        remaining.push_back(kept[i]);
      else
        dropped.push_back({kept[i], left[i], line->at(left[i].x)});
    }
    kept = std::move(remaining);
  }
  std::sort(dropped.begin(), dropped.end(),
            [](const DroppedSample& a, const DroppedSample& b) { return a.index < b.index; });
  return dropped;
}

std::vector<Sample> kept_samples(std::span<const Sample> samples, const std::vector<DroppedSample>& dropped) {
  std::vector<Sample> kept;
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (std::none_of(dropped.begin(), dropped.end(), [i](const DroppedSample& d) { return d.index == i; }))
      kept.push_back(samples[i]);
  return kept;
}

std::string describe_dropped(const std::vector<DroppedSample>& dropped) {
  if (dropped.empty()) return "";
  std::string text = "; left out as slow outliers: ";
  for (std::size_t i = 0; i < dropped.size(); ++i)
    text += fmt::format("{}{:.0f} B {:.3f} us ({:.1f} x the line)", i == 0 ? "" : ", ", dropped[i].sample.x,
                        dropped[i].sample.t * 1e6, dropped[i].sample.t / dropped[i].line_t);
  return text;
}

std::string describe_theil_sen(const std::optional<double>& slope) {
  return slope ? fmt::format("Theil-Sen slope {:.4g} s/B", *slope) : std::string("no Theil-Sen slope (one size)");
}

}  // namespace

std::optional<double> theil_sen_slope(std::span<const Sample> samples) {
  std::vector<double> slopes;
  for (std::size_t i = 0; i < samples.size(); ++i)
    for (std::size_t j = i + 1; j < samples.size(); ++j)
      if (samples[j].x != samples[i].x) slopes.push_back((samples[j].t - samples[i].t) / (samples[j].x - samples[i].x));
  if (slopes.empty()) return std::nullopt;
  return middle(std::move(slopes));
}

std::vector<std::size_t> slow_outliers(std::span<const Sample> samples, double intercept, double slope) {
  const Line line{intercept, slope};
  std::vector<double> misfits, magnitudes;
  for (const Sample& sample : samples) {
    const double fitted = line.at(sample.x);
    misfits.push_back(fitted > 0 && sample.t > 0 ? std::log(sample.t / fitted) : 0.0);
    magnitudes.push_back(std::abs(misfits.back()));
  }
  if (samples.empty()) return {};
  const double threshold = std::max(std::log(min_outlier_factor), outlier_misfits * middle(magnitudes));
  std::vector<std::size_t> outliers;
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (misfits[i] > threshold) outliers.push_back(i);
  if (outliers.size() > samples.size() / 2) {
    std::sort(outliers.begin(), outliers.end(), [&](std::size_t a, std::size_t b) { return misfits[a] > misfits[b]; });
    outliers.resize(samples.size() / 2);
    std::sort(outliers.begin(), outliers.end());
  }
  return outliers;
}

LinearFit fit_relative_robust(std::span<const Sample> samples) {
  const LinearFit all = relative_least_squares(samples);  // also refuses bad input
  const Reference free_line = [](std::span<const Sample> left) -> std::optional<Line> {
    const std::optional<double> slope = theil_sen_slope(left);
    if (!slope || !(*slope > 0)) return std::nullopt;
    std::vector<double> intercepts;
    for (const Sample& sample : left) intercepts.push_back(sample.t - *slope * sample.x);
    return Line{std::max(0.0, middle(std::move(intercepts))), *slope};
  };
  const std::vector<DroppedSample> dropped = drop_slow_outliers(samples, free_line, 2);
  const std::vector<Sample> kept = kept_samples(samples, dropped);
  LinearFit fit = dropped.empty() ? all : relative_least_squares(kept);
  if (!(fit.slope > 0)) {
    const std::optional<double> slope = theil_sen_slope(kept);
    if (!slope || !(*slope > 0))
      throw FitError(fmt::format("the times do not grow with size (least-squares slope {:.4g} s/B, {}): {}{}",
                                 fit.slope, describe_theil_sen(slope), describe_samples(kept),
                                 describe_dropped(dropped)));
    std::vector<double> intercepts;
    for (const Sample& sample : kept) intercepts.push_back(sample.t - *slope * sample.x);
    const double intercept = middle(std::move(intercepts));
    fit.intercept = std::max(0.0, intercept);
    fit.intercept_clamped = intercept < 0;
    fit.slope = *slope;
    fit.slope_method = SlopeMethod::theil_sen;
  }
  fit.dropped = dropped;
  set_residuals(fit, samples);
  return fit;
}

RobustSlope fit_slope_robust(std::span<const Sample> samples, double intercept) {
  const double all = slope_relative(samples, intercept);  // also refuses bad input
  const Reference held_line = [intercept](std::span<const Sample> left) -> std::optional<Line> {
    const std::optional<double> slope = theil_sen_slope(left);
    if (!slope || !(*slope > 0)) return std::nullopt;
    return Line{intercept, *slope};
  };
  RobustSlope result;
  result.dropped = drop_slow_outliers(samples, held_line, 1);
  const std::vector<Sample> kept = kept_samples(samples, result.dropped);
  result.slope = result.dropped.empty() ? all : slope_relative(kept, intercept);
  if (!(result.slope > 0)) {
    const std::optional<double> slope = theil_sen_slope(kept);
    if (!slope || !(*slope > 0))
      throw FitError(fmt::format(
          "the times do not grow with size (least-squares slope {:.4g} s/B through {:.3f} us, {}): {}{}", result.slope,
          intercept * 1e6, describe_theil_sen(slope), describe_samples(kept), describe_dropped(result.dropped)));
    result.slope = *slope;
    result.theil_sen = true;
  }
  return result;
}

}  // namespace ringlab::calibration
