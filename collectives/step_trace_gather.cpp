#include "collectives/step_trace_gather.hpp"

#include "collectives/clock_offset.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace ringlab {

namespace {

static_assert(std::is_trivially_copyable_v<StepSpan>, "spans travel as bytes");

}  // namespace

StepTraceHook StepTraceRecorder::hook() {
  return [this](const StepEvent& event) { events_.push_back(event); };
}

std::vector<StepSpan> StepTraceRecorder::gather(Communicator& comm, Clock::time_point deadline) {
  std::vector<StepSpan> spans;
  spans.reserve(events_.size());
  for (const StepEvent& event : events_)
    spans.push_back({event.kind, comm.rank(), event.step, event.peer, static_cast<double>(event.bytes),
                     clock_seconds(event.start) * 1e6, clock_seconds(event.end) * 1e6});
  events_.clear();
  // Every rank's spans on rank 0's clock (0 where the ranks share one clock).
  const double offset_us = estimate_clock_offset(comm, deadline) * 1e6;
  for (StepSpan& span : spans) {
    span.start_us -= offset_us;
    span.end_us -= offset_us;
  }
  if (comm.rank() != 0) {
    auto count = static_cast<std::int64_t>(spans.size());
    comm.post_send(std::as_bytes(std::span(&count, 1)), 0, trace_count_tag)->wait(deadline, "trace span count");
    comm.post_send(std::as_bytes(std::span(spans)), 0, trace_spans_tag)->wait(deadline, "trace spans");
    return {};
  }
  for (int peer = 1; peer < comm.size(); ++peer) {
    std::int64_t count = 0;
    comm.post_recv(std::as_writable_bytes(std::span(&count, 1)), peer, trace_count_tag)->wait(deadline, "trace span count");
    std::vector<StepSpan> theirs(static_cast<std::size_t>(count));
    comm.post_recv(std::as_writable_bytes(std::span(theirs)), peer, trace_spans_tag)->wait(deadline, "trace spans");
    spans.insert(spans.end(), theirs.begin(), theirs.end());
  }
  return spans;
}

void MeasuredTrace::trace_call(Communicator& comm, ExecuteOptions options,
                               const std::function<void(const ExecuteOptions&)>& call, const std::string& name,
                               const nlohmann::json& args) {
  StepTraceRecorder recorder;
  options.step_trace = recorder.hook();
  call(options);
  std::vector<StepSpan> spans = recorder.gather(comm, Clock::now() + options.timeout);
  if (comm.rank() != 0 || spans.empty()) return;
  if (!origin_us_) {
    double earliest = spans.front().start_us;
    for (const StepSpan& span : spans) earliest = std::min(earliest, span.start_us);
    origin_us_ = earliest;
  }
  shift_spans(spans, *origin_us_);
  for (nlohmann::json& event : call_trace_events(spans, name, args)) events_.push_back(std::move(event));
}

nlohmann::json MeasuredTrace::document(const nlohmann::json& context) const {
  nlohmann::json events = trace_metadata_events(events_);
  for (const nlohmann::json& event : events_) events.push_back(event);
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"ringlab", context}};
}

}  // namespace ringlab
