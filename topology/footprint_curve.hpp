// A measured quantity (a bandwidth, a reduction cost) as a function of the memory a job touches,
// its "footprint": the same copy runs from cache when the job's buffers fit in it and from DRAM
// when they do not (docs/topology-format.md, "Footprint curves"). Steps of at():
//   1. below the first point or above the last, the end point's value (clamped);
//   2. between two points, linear in log(footprint): v = v0 + (v1 - v0) * ln(f / f0) / ln(f1 / f0).
// Plain values; a default-constructed curve is empty (the topology's constant figures apply).
#pragma once

#include <string>
#include <vector>

namespace ringlab {

struct CurvePoint {
  double footprint_bytes = 0;  // > 0, strictly increasing along a curve
  double value = 0;            // > 0 and finite (bytes/s or seconds per byte)
};

class FootprintCurve {
 public:
  FootprintCurve() = default;
  // Throws std::invalid_argument naming "points[i].footprint_bytes" or "points[i].value" when a
  // footprint is not positive and finite or not larger than the one before, or a value is not
  // positive and finite.
  explicit FootprintCurve(std::vector<CurvePoint> points);

  bool empty() const { return points_.empty(); }
  const std::vector<CurvePoint>& points() const { return points_; }
  // The value at `footprint_bytes` (steps 1-2); must not be called on an empty curve.
  double at(double footprint_bytes) const;

  friend bool operator==(const FootprintCurve&, const FootprintCurve&) = default;

 private:
  std::vector<CurvePoint> points_;
};

inline bool operator==(const CurvePoint& a, const CurvePoint& b) {
  return a.footprint_bytes == b.footprint_bytes && a.value == b.value;
}

// What a calibrated topology may carry beside its constant figures. Each curve is optional:
//   link_bandwidth:  bytes/s of every link at that footprint (the topology's links must all have
//                    one bandwidth, the written one being the value without a footprint);
//   link_bandwidth_factor: a number multiplying every link's written bandwidth at that footprint,
//                    for links of several bandwidths (not with link_bandwidth);
//   switch_capacity: bytes/s of every limited switch (they must all have one capacity);
//   gamma:           seconds per byte reduced (replaces gamma_seconds_per_byte);
//   copy_cost_ratio: copying a byte over reducing one (replaces copy_cost_ratio);
//   in_place_gamma:  as gamma, for in-place reductions (replaces Topology's in-place gamma; set by
//                    the simulator, never in a file).
struct FootprintCurves {
  FootprintCurve link_bandwidth;
  FootprintCurve switch_capacity;
  FootprintCurve gamma_seconds_per_byte;
  FootprintCurve link_bandwidth_factor;
  FootprintCurve copy_cost_ratio;
  FootprintCurve in_place_gamma_seconds_per_byte;

  bool empty() const {
    return link_bandwidth.empty() && switch_capacity.empty() && gamma_seconds_per_byte.empty() &&
           link_bandwidth_factor.empty() && copy_cost_ratio.empty() && in_place_gamma_seconds_per_byte.empty();
  }
  friend bool operator==(const FootprintCurves&, const FootprintCurves&) = default;
};

// The footprints of the calibration's measurements, by the rule of a collective call's footprint
// (simulator/job_footprint.hpp: every rank's buffers, summed over the ranks):
// ping-pong of s bytes: 2 ranks x (send + receive buffer);
inline double ping_pong_footprint_bytes(double message_bytes) { return 4 * message_bytes; }
// concurrent streaming of s bytes on k ranks: k x (send + receive buffer);
inline double streaming_footprint_bytes(double message_bytes, int active_ranks) {
  return 2 * message_bytes * active_ranks;
}
// the reduce kernel on operands of s bytes, out of place: two inputs and one output.
inline double reduce_footprint_bytes(double operand_bytes) { return 3 * operand_bytes; }

}  // namespace ringlab
