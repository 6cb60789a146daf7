// The simulator's models behind one interface: a Predictor is a name and a function that prices
// one call of a schedule, and make_model builds the named model (the closed form or the
// flow-level model, the one place that chooses between them) on a topology.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "collectives/datatype.hpp"
#include "simulator/job_footprint.hpp"
#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

struct Predictor {
  std::string name;  // e.g. "closed-form"
  // The time of one call; type and op are the row's, segment_bytes is the segment size the bench
  // ran with, placement the row's column.
  std::function<double(const Schedule&, std::int64_t count, DataType type, ReduceOp op, std::int64_t segment_bytes,
                       Placement placement)>
      seconds;
};

struct ModelInfo {
  std::string_view name;
  bool cuts_segments = false;  // prices transfers cut into segments (the closed form sends them whole)
};

// Every model: "flow-level" (flows share each link max-min fairly, the default of `simulate`),
// then "closed-form" (alpha-beta-gamma along each route, no contention).
std::span<const ModelInfo> models();
// Throws std::invalid_argument "--model NAME is not a model; pick flow-level or closed-form".
const ModelInfo& find_model(std::string_view name);

// The named model on `topology` (kept by reference: it must outlive the predictor) with the
// reduction's gamma; the flow-level model cuts transfers into segments of `segment_bytes` (0:
// whole). The predictor's own op and segment_bytes arguments are not used: the topology and gamma
// given here already price the op, and the segments are the model's.
Predictor make_model(std::string_view name, const Topology& topology, double gamma_seconds_per_byte,
                     std::int64_t segment_bytes = 0);

}  // namespace ringlab::simulator
