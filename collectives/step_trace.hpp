// Step traces: the spans of one all-reduce call per rank and step (send, receive, reduce), as
// the executor measures them (ExecuteOptions::step_trace) or the flow-level simulator predicts
// them, and their Trace Event Format JSON (ui.perfetto.dev, chrome://tracing), one layout for
// both so a measured and a simulated trace open side by side (docs/bench.md#trace-files):
//   pid = rank (process "rank R"), tid 0 "steps": a span for the call, "step k" spans inside it;
//   tid 1 "reduce": the rank's reductions; tid 2 + 2p "send to rank p" and tid 3 + 2p "recv
//   from rank p": one span per step and peer, from when the transfers were posted (measured) or
//   started (simulated) to when the last of its pieces was seen complete.
// Times are microseconds. Pure functions, no communication (step_trace_gather.hpp does that).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ringlab {

enum class SpanKind { step, send, recv, reduce };

std::string_view name_of(SpanKind kind);

// What the executor reports for one rank: a step, or one piece's send, receive or reduction.
struct StepEvent {
  SpanKind kind = SpanKind::step;
  int step = 0;
  int peer = -1;  // -1 for steps
  std::int64_t bytes = 0;
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
};

// The executor's optional hook (ExecuteOptions::step_trace); when empty nothing is measured.
using StepTraceHook = std::function<void(const StepEvent&)>;

// A span in microseconds on one rank's timeline.
struct StepSpan {
  SpanKind kind = SpanKind::step;
  int rank = 0;
  int step = 0;
  int peer = -1;
  double bytes = 0;
  double start_us = 0;
  double end_us = 0;
};

// One span per (rank, step, kind, peer) for sends and receives: earliest start, latest end, bytes
// summed (a transfer cut into pieces becomes one span); steps and reductions kept as they are.
// The result is ordered by rank, then start, then longer first (so enclosing spans come first).
std::vector<StepSpan> merge_transfer_spans(std::vector<StepSpan> spans);

// The thread a span goes on in its rank's process (see the layout above).
int trace_thread_of(const StepSpan& span);

// The name a span has in the trace: "step 3", "send to rank 1", "recv from rank 2",
// "reduce from rank 2".
std::string trace_name_of(const StepSpan& span);

// Trace events of one call: per rank a complete ("X") span named `call_name` on tid 0 around
// the rank's steps, the step spans inside it and the merged transfer and reduce spans; `args`
// is added to the call spans. Metadata events are not included (trace_metadata_events).
nlohmann::json call_trace_events(const std::vector<StepSpan>& spans, std::string_view call_name,
                                 const nlohmann::json& args);

// The name of a call's span, the same in measured and simulated traces: "ring 1048576 B out-of-place".
std::string trace_call_name(std::string_view algorithm, std::int64_t bytes, std::string_view placement);
// The same for a run of several (type, op) (bench -d all / -o all), where the short names would
// clash: "ring 1048576 B out-of-place float32 sum".
std::string trace_call_name(std::string_view algorithm, std::int64_t bytes, std::string_view placement,
                            std::string_view datatype, std::string_view op);

// Metadata ("M") events naming each rank's process ("rank R") and every thread `events` uses
// on it, plus the sort order of processes and threads.
nlohmann::json trace_metadata_events(const nlohmann::json& events);

// Moves every span by -origin_us (so the earliest start becomes 0 when origin_us is it).
void shift_spans(std::vector<StepSpan>& spans, double origin_us);

}  // namespace ringlab
