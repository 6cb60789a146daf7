#include "collectives/step_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

namespace ringlab {

namespace {

constexpr int steps_thread = 0;
constexpr int reduce_thread = 1;

bool is_transfer(SpanKind kind) { return kind == SpanKind::send || kind == SpanKind::recv; }

std::string thread_name(int tid) {
  if (tid == steps_thread) return "steps";
  if (tid == reduce_thread) return "reduce";
  const int peer = (tid - 2) / 2;
  return tid % 2 == 0 ? fmt::format("send to rank {}", peer) : fmt::format("recv from rank {}", peer);
}

nlohmann::json complete_event(int pid, int tid, std::string name, double start_us, double end_us, nlohmann::json args) {
  return {{"ph", "X"},       {"pid", pid},  {"tid", tid}, {"name", std::move(name)}, {"ts", start_us},
          {"dur", std::max(0.0, end_us - start_us)}, {"args", std::move(args)}};
}

}  // namespace

std::string_view name_of(SpanKind kind) {
  switch (kind) {
    case SpanKind::step: return "step";
    case SpanKind::send: return "send";
    case SpanKind::recv: return "recv";
    case SpanKind::reduce: return "reduce";
  }
  return "?";
}

std::vector<StepSpan> merge_transfer_spans(std::vector<StepSpan> spans) {
  std::map<std::tuple<int, int, int, int>, StepSpan> transfers;  // (rank, step, kind, peer)
  std::vector<StepSpan> merged;
  for (const StepSpan& span : spans) {
    if (!is_transfer(span.kind)) {
      merged.push_back(span);
      continue;
    }
    const auto key = std::make_tuple(span.rank, span.step, static_cast<int>(span.kind), span.peer);
    const auto [found, inserted] = transfers.try_emplace(key, span);
    if (inserted) continue;
    StepSpan& into = found->second;
    into.start_us = std::min(into.start_us, span.start_us);
    into.end_us = std::max(into.end_us, span.end_us);
    into.bytes += span.bytes;
  }
  for (const auto& entry : transfers) merged.push_back(entry.second);
  std::stable_sort(merged.begin(), merged.end(), [](const StepSpan& a, const StepSpan& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.start_us != b.start_us) return a.start_us < b.start_us;
    return a.end_us - a.start_us > b.end_us - b.start_us;
  });
  return merged;
}

int trace_thread_of(const StepSpan& span) {
  switch (span.kind) {
    case SpanKind::step: return steps_thread;
    case SpanKind::reduce: return reduce_thread;
    case SpanKind::send: return 2 + 2 * span.peer;
    case SpanKind::recv: return 3 + 2 * span.peer;
  }
  return steps_thread;
}

std::string trace_name_of(const StepSpan& span) {
  switch (span.kind) {
    case SpanKind::step: return fmt::format("step {}", span.step);
    case SpanKind::send: return fmt::format("send to rank {}", span.peer);
    case SpanKind::recv: return fmt::format("recv from rank {}", span.peer);
    case SpanKind::reduce: return fmt::format("reduce from rank {}", span.peer);
  }
  return "?";
}

nlohmann::json call_trace_events(const std::vector<StepSpan>& spans, std::string_view call_name,
                                 const nlohmann::json& args) {
  const std::vector<StepSpan> merged = merge_transfer_spans(spans);
  std::map<int, std::pair<double, double>> call_of_rank;  // rank -> (first step start, last step end)
  for (const StepSpan& span : merged) {
    if (span.kind != SpanKind::step) continue;
    auto [found, inserted] = call_of_rank.try_emplace(span.rank, span.start_us, span.end_us);
    if (inserted) continue;
    found->second.first = std::min(found->second.first, span.start_us);
    found->second.second = std::max(found->second.second, span.end_us);
  }
  nlohmann::json events = nlohmann::json::array();
  for (const auto& [rank, extent] : call_of_rank)
    events.push_back(complete_event(rank, steps_thread, std::string(call_name), extent.first, extent.second, args));
  for (const StepSpan& span : merged) {
    nlohmann::json span_args = {{"step", span.step}};
    if (span.kind != SpanKind::step) {
      span_args["peer"] = span.peer;
      span_args["bytes"] = span.bytes;
    }
    events.push_back(complete_event(span.rank, trace_thread_of(span), trace_name_of(span), span.start_us, span.end_us,
                                    std::move(span_args)));
  }
  return events;
}

std::string trace_call_name(std::string_view algorithm, std::int64_t bytes, std::string_view placement) {
  return fmt::format("{} {} B {}", algorithm, bytes, placement);
}

std::string trace_call_name(std::string_view algorithm, std::int64_t bytes, std::string_view placement,
                            std::string_view datatype, std::string_view op) {
  return fmt::format("{} {} {}", trace_call_name(algorithm, bytes, placement), datatype, op);
}

nlohmann::json trace_metadata_events(const nlohmann::json& events) {
  std::set<std::pair<int, int>> threads;
  for (const nlohmann::json& event : events) {
    if (event.value("ph", "") != "X" && event.value("ph", "") != "B") continue;
    threads.emplace(event.at("pid").get<int>(), event.at("tid").get<int>());
  }
  nlohmann::json metadata = nlohmann::json::array();
  int named_process = std::numeric_limits<int>::min();
  for (const auto& [pid, tid] : threads) {
    if (pid != named_process) {
      metadata.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_name"}, {"args", {{"name", fmt::format("rank {}", pid)}}}});
      metadata.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", pid}}}});
      named_process = pid;
    }
    metadata.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", thread_name(tid)}}}});
    metadata.push_back({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", "thread_sort_index"}, {"args", {{"sort_index", tid}}}});
  }
  return metadata;
}

void shift_spans(std::vector<StepSpan>& spans, double origin_us) {
  for (StepSpan& span : spans) {
    span.start_us -= origin_us;
    span.end_us -= origin_us;
  }
}

}  // namespace ringlab
