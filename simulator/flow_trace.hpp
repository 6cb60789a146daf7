// A flow-level prediction as a Trace Event Format (Chrome-trace / Perfetto) JSON document
// (docs/simulator.md#trace-file), in the layout of a measured trace (collectives/step_trace.hpp)
// so both open side by side:
// - one process per rank ("rank R", pid R): a span for the call and "step k" spans on thread 0,
//   and per step and peer a "send to rank p" / "recv from rank p" span from the flow's start to
//   its last piece's arrival;
// - a process "link loads" (pid = ranks): one counter track ("C" events) per link direction or
//   limited switch that carried bytes, its rate in GB/s over time;
// - a top-level "ringlab" object (ignored by trace viewers): the predicted time, per-rank finish
//   times and the totals of every link direction and limited switch that carried bytes.
// Times are microseconds from the start of the collective.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "simulator/flow_level.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

// `context` (algorithm, bytes, topology, command, ...) is copied into the "ringlab" object.
nlohmann::json flow_trace_json(const FlowPrediction& prediction, const Topology& topology, const nlohmann::json& context);

// The "ringlab" object's "loads": one entry per resource that carried bytes.
nlohmann::json loads_json(const FlowPrediction& prediction, const Topology& topology);

// The counter events ("C") of the load samples, on process `pid`, named "link A -> B" or
// "switch S", args {"GB/s": rate}.
nlohmann::json load_counter_events(const FlowPrediction& prediction, const Topology& topology, int pid);

}  // namespace ringlab::simulator
