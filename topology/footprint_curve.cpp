#include "topology/footprint_curve.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace ringlab {

FootprintCurve::FootprintCurve(std::vector<CurvePoint> points) : points_(std::move(points)) {
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const CurvePoint& point = points_[i];
    if (!std::isfinite(point.footprint_bytes) || point.footprint_bytes <= 0)
      throw std::invalid_argument(
          fmt::format("points[{}].footprint_bytes is {}; expected a positive number of bytes", i, point.footprint_bytes));
    if (i > 0 && point.footprint_bytes <= points_[i - 1].footprint_bytes)
      throw std::invalid_argument(fmt::format(
          "points[{}].footprint_bytes is {}, not larger than points[{}]'s {}; list the points by increasing footprint, "
          "each footprint once",
          i, point.footprint_bytes, i - 1, points_[i - 1].footprint_bytes));
    if (!std::isfinite(point.value) || point.value <= 0)
      throw std::invalid_argument(fmt::format("points[{}].value is {}; expected a positive finite number", i, point.value));
  }
}

double FootprintCurve::at(double footprint_bytes) const {
  if (footprint_bytes <= points_.front().footprint_bytes) return points_.front().value;
  if (footprint_bytes >= points_.back().footprint_bytes) return points_.back().value;
  std::size_t upper = 1;
  while (points_[upper].footprint_bytes < footprint_bytes) ++upper;
  const CurvePoint& low = points_[upper - 1];
  const CurvePoint& high = points_[upper];
  const double weight = std::log(footprint_bytes / low.footprint_bytes) / std::log(high.footprint_bytes / low.footprint_bytes);
  return low.value + (high.value - low.value) * weight;
}

}  // namespace ringlab
