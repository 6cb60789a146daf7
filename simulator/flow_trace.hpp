// A flow-level prediction as a Chrome-trace / Perfetto JSON document (docs/simulator.md):
// - process 0 "rank steps": one complete event ("X") per rank and step, on the rank's thread;
// - process 1 "transfers": one async slice ("b"/"e") per transfer on its sender's thread, named
//   "to rank D", with bytes and step in args (async, since a rank's transfers overlap);
// - a top-level "ringlab" object (ignored by trace viewers): the predicted time, per-rank finish
//   times and the load of every link direction and limited switch that carried bytes.
// Times are microseconds from the start of the collective.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "flow_level.hpp"
#include "topology.hpp"

namespace ringlab::simulator {

// `context` (algorithm, bytes, topology, command, ...) is copied into the "ringlab" object.
nlohmann::json flow_trace_json(const FlowPrediction& prediction, const Topology& topology, const nlohmann::json& context);

// The "ringlab" object's "loads": one entry per resource that carried bytes.
nlohmann::json loads_json(const FlowPrediction& prediction, const Topology& topology);

}  // namespace ringlab::simulator
