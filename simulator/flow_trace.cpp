#include "flow_trace.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace ringlab::simulator {

namespace {

constexpr double microseconds = 1e6;

nlohmann::json name_event(int pid, int tid, const std::string& kind, const std::string& name) {
  nlohmann::json event = {{"ph", "M"}, {"pid", pid}, {"name", kind}, {"args", {{"name", name}}}};
  if (tid >= 0) event["tid"] = tid;
  return event;
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

nlohmann::json flow_trace_json(const FlowPrediction& prediction, const Topology& topology, const nlohmann::json& context) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(name_event(0, -1, "process_name", "rank steps"));
  events.push_back(name_event(1, -1, "process_name", "transfers (by sender)"));
  const auto nranks = static_cast<int>(prediction.prediction.rank_finish_seconds.size());
  for (int rank = 0; rank < nranks; ++rank)
    for (int pid : {0, 1}) events.push_back(name_event(pid, rank, "thread_name", fmt::format("rank {}", rank)));
  std::int64_t transfer_id = 0;
  for (const TraceSpan& span : prediction.trace) {
    const double start = span.start_seconds * microseconds;
    const double end = span.end_seconds * microseconds;
    if (span.peer < 0) {
      events.push_back({{"ph", "X"}, {"pid", 0}, {"tid", span.rank}, {"name", fmt::format("step {}", span.step)},
                        {"ts", start}, {"dur", end - start}});
      continue;
    }
    const nlohmann::json args = {{"bytes", span.bytes}, {"step", span.step}, {"to", span.peer}};
    const std::string name = fmt::format("to rank {}", span.peer);
    events.push_back({{"ph", "b"}, {"cat", "transfer"}, {"id", transfer_id}, {"pid", 1}, {"tid", span.rank},
                      {"name", name}, {"ts", start}, {"args", args}});
    events.push_back({{"ph", "e"}, {"cat", "transfer"}, {"id", transfer_id}, {"pid", 1}, {"tid", span.rank},
                      {"name", name}, {"ts", end}});
    ++transfer_id;
  }
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
