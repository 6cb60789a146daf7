#include "simulator/flow_trace.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "collectives/step_trace.hpp"

namespace ringlab::simulator {

namespace {

constexpr double microseconds = 1e6;

// The rank-step layout of step_trace.hpp: a transfer is a send on its sender and a receive on
// its receiver, both from the flow's start to its last piece's arrival.
std::vector<StepSpan> step_spans(const FlowPrediction& prediction) {
  std::vector<StepSpan> spans;
  for (const TraceSpan& span : prediction.trace) {
    const double start = span.start_seconds * microseconds;
    const double end = span.end_seconds * microseconds;
    if (span.peer < 0) {
      spans.push_back({SpanKind::step, span.rank, span.step, -1, 0.0, start, end});
      continue;
    }
    spans.push_back({SpanKind::send, span.rank, span.step, span.peer, span.bytes, start, end});
    spans.push_back({SpanKind::recv, span.peer, span.step, span.rank, span.bytes, start, end});
  }
  return spans;
}

std::string resource_name(const Topology& topology, bool is_switch, NodeId from, NodeId to) {
  if (is_switch) return fmt::format("switch {}", topology.node(from).name);
  return fmt::format("link {} -> {}", topology.node(from).name, topology.node(to).name);
}

}  // namespace

nlohmann::json loads_json(const FlowPrediction& prediction, const Topology& topology) {
  nlohmann::json loads = nlohmann::json::array();
  for (const ResourceLoad& load : prediction.loads) {
    nlohmann::json entry = {{"kind", load.is_switch ? "switch" : "link"},
                            {"capacity_bytes_per_second", load.capacity},
                            {"bytes", load.bytes},
                            {"busy_seconds", load.busy_seconds},
                            {"utilisation", load.utilisation}};
    if (load.is_switch) {
      entry["node"] = topology.node(load.from).name;
    } else {
      entry["from"] = topology.node(load.from).name;
      entry["to"] = topology.node(load.to).name;
    }
    loads.push_back(std::move(entry));
  }
  return loads;
}

nlohmann::json load_counter_events(const FlowPrediction& prediction, const Topology& topology, int pid) {
  nlohmann::json events = nlohmann::json::array();
  for (const LoadSample& sample : prediction.load_samples)
    events.push_back({{"ph", "C"},
                      {"pid", pid},
                      {"name", resource_name(topology, sample.is_switch, sample.from, sample.to)},
                      {"ts", sample.seconds * microseconds},
                      {"args", {{"GB/s", sample.bytes_per_second / 1e9}}}});
  return events;
}

nlohmann::json flow_trace_json(const FlowPrediction& prediction, const Topology& topology, const nlohmann::json& context) {
  const auto nranks = static_cast<int>(prediction.prediction.rank_finish_seconds.size());
  nlohmann::json call_args = {{"source", "simulated"}, {"ranks", nranks}};
  for (const char* key : {"algorithm", "bytes", "placement"})
    if (context.contains(key)) call_args[key] = context[key];
  const std::string call_name =
      context.contains("algorithm") && context.contains("bytes") && context.contains("placement")
          ? trace_call_name(context["algorithm"].get<std::string>(), context["bytes"].get<std::int64_t>(),
                            context["placement"].get<std::string>())
          : std::string("call");
  nlohmann::json spans = call_trace_events(step_spans(prediction), call_name, call_args);
  nlohmann::json events = trace_metadata_events(spans);
  const int links_pid = nranks;  // after the ranks' processes
  events.push_back({{"ph", "M"}, {"pid", links_pid}, {"name", "process_name"}, {"args", {{"name", "link loads"}}}});
  events.push_back({{"ph", "M"}, {"pid", links_pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", links_pid}}}});
  for (nlohmann::json& event : spans) events.push_back(std::move(event));
  for (nlohmann::json& event : load_counter_events(prediction, topology, links_pid)) events.push_back(std::move(event));
  nlohmann::json summary = context;
  summary["predicted_seconds"] = prediction.prediction.seconds;
  summary["rank_finish_seconds"] = prediction.prediction.rank_finish_seconds;
  summary["transfers"] = prediction.transfers;
  summary["events"] = prediction.events;
  summary["trace_truncated"] = prediction.trace_truncated;
  summary["loads"] = loads_json(prediction, topology);
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"ringlab", std::move(summary)}};
}

}  // namespace ringlab::simulator
