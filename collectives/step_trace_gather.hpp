// One rank's step trace of a call (the executor's ExecuteOptions::step_trace hook feeds it) and
// the gather that brings every rank's spans to rank 0 on rank 0's clock (docs/bench.md#trace-files).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/communicator.hpp"
#include "collectives/execute.hpp"
#include "collectives/step_trace.hpp"

namespace ringlab {

// Tags of the gather: above every step tag and the bench's memcpy release (31000), below the
// executor's agreement tags (32000..). The clock offsets use clock_offset.hpp's tags.
inline constexpr int trace_count_tag = 31702;
inline constexpr int trace_spans_tag = 31703;

class StepTraceRecorder {
 public:
  // A hook that appends to this recorder, which must outlive every call made with it.
  StepTraceHook hook();
  // Collective: every rank calls it after the traced call. Rank 0 gets every rank's spans (this
  // rank's recorded events, then cleared), in microseconds of rank 0's steady clock; the other
  // ranks get an empty vector. Unless the ranks share one clock, each rank's offset to rank 0 is
  // estimated first (estimate_clock_offset, clock_offset.hpp).
  std::vector<StepSpan> gather(Communicator& comm, Clock::time_point deadline);

 private:
  std::vector<StepEvent> events_;
};

// The measured timeline of `bench --trace` and `allreduce --trace`: one traced call at a time,
// kept on rank 0, times in microseconds from the first traced call's earliest start.
class MeasuredTrace {
 public:
  // Collective: runs `call` once with a StepTraceRecorder hooked into a copy of `options`, gathers
  // the spans (a ping-pong clock offset per rank unless they share one clock) and, on rank 0,
  // adds the call's events, named trace_call_name(...), with `args` on the call spans.
  void trace_call(Communicator& comm, ExecuteOptions options, const std::function<void(const ExecuteOptions&)>& call,
                  const std::string& name, const nlohmann::json& args);
  // Rank 0: the Trace Event Format document, metadata first, `context` as its "ringlab" object.
  nlohmann::json document(const nlohmann::json& context) const;

 private:
  nlohmann::json events_ = nlohmann::json::array();
  std::optional<double> origin_us_;
};

}  // namespace ringlab
