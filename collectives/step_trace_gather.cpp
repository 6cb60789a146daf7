#include "step_trace_gather.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <type_traits>

namespace ringlab {

namespace {

static_assert(std::is_trivially_copyable_v<StepSpan>, "spans travel as bytes");

double seconds_of(Clock::time_point time) { return std::chrono::duration<double>(time.time_since_epoch()).count(); }

std::span<std::byte> bytes_of(double& value) { return std::as_writable_bytes(std::span(&value, 1)); }

// Rank 0's side: the peer's clock minus rank 0's.
double measure_offset(Communicator& comm, int peer, Clock::time_point deadline) {
  std::vector<ClockSample> samples;
  for (int round = 0; round < clock_ping_pongs; ++round) {
    ClockSample sample;
    sample.sent = seconds_of(Clock::now());
    double ping = sample.sent;
    RequestPtr reply = comm.post_recv(bytes_of(sample.remote), peer, trace_pong_tag);
    comm.post_send(bytes_of(ping), peer, trace_ping_tag)->wait(deadline, "trace clock ping");
    reply->wait(deadline, "trace clock pong");
    sample.received = seconds_of(Clock::now());
    samples.push_back(sample);
  }
  return clock_offset_seconds(samples);
}

void answer_pings(Communicator& comm, Clock::time_point deadline) {
  for (int round = 0; round < clock_ping_pongs; ++round) {
    double ping = 0;
    comm.post_recv(bytes_of(ping), 0, trace_ping_tag)->wait(deadline, "trace clock ping");
    double now = seconds_of(Clock::now());
    comm.post_send(bytes_of(now), 0, trace_pong_tag)->wait(deadline, "trace clock pong");
  }
}

}  // namespace

bool shares_one_clock(const Communicator& comm) {
  return comm.backend_name() == "threads" || comm.backend_name() == "cuda-peer";
}

StepTraceHook StepTraceRecorder::hook() {
  return [this](const StepEvent& event) { events_.push_back(event); };
}

std::vector<StepSpan> StepTraceRecorder::gather(Communicator& comm, Clock::time_point deadline) {
  std::vector<StepSpan> spans;
  spans.reserve(events_.size());
  for (const StepEvent& event : events_)
    spans.push_back({event.kind, comm.rank(), event.step, event.peer, static_cast<double>(event.bytes),
                     seconds_of(event.start) * 1e6, seconds_of(event.end) * 1e6});
  events_.clear();
  const bool shared_clock = shares_one_clock(comm);
  if (comm.rank() != 0) {
    if (!shared_clock) answer_pings(comm, deadline);
    auto count = static_cast<std::int64_t>(spans.size());
    comm.post_send(std::as_bytes(std::span(&count, 1)), 0, trace_count_tag)->wait(deadline, "trace span count");
    comm.post_send(std::as_bytes(std::span(spans)), 0, trace_spans_tag)->wait(deadline, "trace spans");
    return {};
  }
  for (int peer = 1; peer < comm.size(); ++peer) {
    const double offset_us = shared_clock ? 0.0 : measure_offset(comm, peer, deadline) * 1e6;
    std::int64_t count = 0;
    comm.post_recv(std::as_writable_bytes(std::span(&count, 1)), peer, trace_count_tag)->wait(deadline, "trace span count");
    std::vector<StepSpan> theirs(static_cast<std::size_t>(count));
    comm.post_recv(std::as_writable_bytes(std::span(theirs)), peer, trace_spans_tag)->wait(deadline, "trace spans");
    for (StepSpan& span : theirs) {
      span.start_us -= offset_us;
      span.end_us -= offset_us;
    }
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
