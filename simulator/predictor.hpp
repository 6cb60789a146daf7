// The simulator's models behind one interface: a Predictor is a name and a function that prices
// one call of a schedule, with optional capabilities a model may offer, and make_model builds the
// named model (the closed form or the flow-level model, the one place that chooses between them)
// on a topology.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "collectives/datatype.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/job_footprint.hpp"
#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

// One schedule priced at any count, type and placement (Predictor::prepare).
using ScheduleSeconds = std::function<double(std::int64_t count, DataType type, Placement placement)>;

struct Predictor {
  std::string name;  // e.g. "closed-form"
  // The time of one call; type and op are the row's, segment_bytes is the segment size the bench
  // ran with, placement the row's column.
  std::function<double(const Schedule&, std::int64_t count, DataType type, ReduceOp op, std::int64_t segment_bytes,
                       Placement placement)>
      seconds;
  // Optional capabilities, empty where the model has none:
  // - prepare: the schedule made ready to be priced at many counts (the closed form packs an
  //   explicit schedule's ops once: PreparedSchedule); keeps a reference to the schedule;
  std::function<ScheduleSeconds(const Schedule&)> prepare = {};
  // - flows: a flow-level simulation of one call, with the load each link carried and, where
  //   make_model was asked to record it, its timeline (simulate's busiest link and --trace).
  std::function<FlowPrediction(const Schedule&, std::int64_t count, DataType type, Placement placement)> flows = {};
  // - ranks_per_simulated_rank: with flows, how many ranks one simulated rank stands for
  //   (FlowLevelModel::ranks_per_simulated_rank, whose rank orbits flows then reuses).
  std::function<int(const Schedule&, std::int64_t count)> ranks_per_simulated_rank = {};
};

struct ModelInfo {
  std::string_view name;
  // Prices transfers cut into segments and the receives the executor lands in scratch, as its
  // step plan does (the closed form sends transfers whole and prices no copies).
  bool cuts_segments = false;
  bool flows = false;  // offers Predictor::flows
  std::string_view description;  // how it prices, for report headers
};

// Every model: "flow-level" (flows share each link max-min fairly, the default of `simulate`),
// then "closed-form" (alpha-beta-gamma along each route, no contention).
std::span<const ModelInfo> models();
// Throws std::invalid_argument "--model NAME is not a model; pick flow-level or closed-form".
const ModelInfo& find_model(std::string_view name);

// The named model on `topology` (kept by reference: it must outlive the predictor) with the
// reduction's gamma; the flow-level model cuts transfers into segments of `segment_bytes` (0:
// whole), with `record_trace` records each call's timeline for flows, and reports its progress
// within a call to `progress` (FlowLevelOptions::progress). The predictor's own op
// and segment_bytes arguments are not used: the topology and gamma given here already price the
// op, and the segments are the model's.
Predictor make_model(std::string_view name, const Topology& topology, double gamma_seconds_per_byte,
                     std::int64_t segment_bytes = 0, bool record_trace = false,
                     std::function<void(double)> progress = {});

}  // namespace ringlab::simulator
