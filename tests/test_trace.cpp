// Step traces (collectives/step_trace*.hpp): merging, layout, metadata, the clock offset, and the
// executor's hook on the threads backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <map>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/execute.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/flow_trace.hpp"
#include "topology/presets.hpp"
#include "collectives/step_trace.hpp"
#include "collectives/step_trace_gather.hpp"

namespace ringlab {
namespace {


TEST(StepTrace, MergesPiecesOfOneTransferPerStepAndPeer) {
  const std::vector<StepSpan> spans = {
      {SpanKind::step, 0, 0, -1, 0, 0, 10},     {SpanKind::recv, 0, 0, 1, 100, 1, 4},
      {SpanKind::recv, 0, 0, 1, 50, 1, 6},      {SpanKind::send, 0, 0, 1, 100, 1, 3},
      {SpanKind::recv, 0, 0, 2, 10, 1, 2},      {SpanKind::reduce, 0, 0, 1, 100, 4, 5},
      {SpanKind::reduce, 0, 0, 1, 50, 6, 7},    {SpanKind::recv, 0, 1, 1, 10, 11, 12}};
  const std::vector<StepSpan> merged = merge_transfer_spans(spans);
  ASSERT_EQ(merged.size(), 7u);  // the two pieces from rank 1 in step 0 became one
  const auto from_1 = std::find_if(merged.begin(), merged.end(), [](const StepSpan& s) {
    return s.kind == SpanKind::recv && s.step == 0 && s.peer == 1;
  });
  ASSERT_NE(from_1, merged.end());
  EXPECT_EQ(from_1->start_us, 1);
  EXPECT_EQ(from_1->end_us, 6);
  EXPECT_EQ(from_1->bytes, 150);
  EXPECT_EQ(std::count_if(merged.begin(), merged.end(), [](const StepSpan& s) { return s.kind == SpanKind::reduce; }), 2);
  EXPECT_EQ(merged.front().kind, SpanKind::step);  // starts first, so it comes first
}

TEST(StepTrace, ThreadsAndNamesFollowTheLayout) {
  EXPECT_EQ(trace_thread_of({SpanKind::step, 3, 1, -1, 0, 0, 1}), 0);
  EXPECT_EQ(trace_thread_of({SpanKind::reduce, 3, 1, 2, 0, 0, 1}), 1);
  EXPECT_EQ(trace_thread_of({SpanKind::send, 3, 1, 2, 0, 0, 1}), 6);
  EXPECT_EQ(trace_thread_of({SpanKind::recv, 3, 1, 2, 0, 0, 1}), 7);
  EXPECT_EQ(trace_name_of({SpanKind::step, 3, 4, -1, 0, 0, 1}), "step 4");
  EXPECT_EQ(trace_name_of({SpanKind::send, 3, 4, 0, 0, 0, 1}), "send to rank 0");
  EXPECT_EQ(trace_name_of({SpanKind::recv, 3, 4, 2, 0, 0, 1}), "recv from rank 2");
  EXPECT_EQ(trace_call_name("ring", 1024, "in-place"), "ring 1024 B in-place");
  EXPECT_EQ(trace_call_name("ring", 1024, "in-place", "bfloat16", "max"), "ring 1024 B in-place bfloat16 max");
}

TEST(StepTrace, CallSpanEnclosesTheStepsAndEveryThreadIsNamed) {
  const std::vector<StepSpan> spans = {{SpanKind::step, 1, 0, -1, 0, 2, 5}, {SpanKind::step, 1, 1, -1, 0, 5, 9},
                                       {SpanKind::send, 1, 1, 0, 8, 5, 8}};
  const nlohmann::json events = call_trace_events(spans, "ring 8 B out-of-place", {{"source", "measured"}});
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0]["name"], "ring 8 B out-of-place");
  EXPECT_EQ(events[0]["ts"], 2.0);
  EXPECT_EQ(events[0]["dur"], 7.0);
  EXPECT_EQ(events[0]["pid"], 1);
  EXPECT_EQ(events[0]["args"]["source"], "measured");
  EXPECT_EQ(events[3]["tid"], 2);
  EXPECT_EQ(events[3]["args"]["bytes"], 8.0);
  const nlohmann::json metadata = trace_metadata_events(events);
  std::set<std::tuple<int, int, std::string>> names;
  for (const nlohmann::json& event : metadata)
    if (event["name"] == "thread_name") names.emplace(event["pid"], event["tid"], event["args"]["name"]);
  EXPECT_EQ(names, (std::set<std::tuple<int, int, std::string>>{{1, 0, "steps"}, {1, 2, "send to rank 0"}}));
  EXPECT_EQ(metadata[0]["name"], "process_name");
  EXPECT_EQ(metadata[0]["args"]["name"], "rank 1");
}

TEST(StepTrace, NegativeSpanBecomesZeroDuration) {
  const nlohmann::json events = call_trace_events({{SpanKind::step, 0, 0, -1, 0, 5, 4}}, "c", nlohmann::json::object());
  EXPECT_EQ(events[1]["dur"], 0.0);
}

TEST(StepTrace, ExecutorReportsEveryStepAndTransferOfTheSchedule) {
  constexpr int nranks = 4;
  constexpr std::int64_t count = 1000;
  std::mutex lock;
  std::vector<std::vector<StepEvent>> events(nranks);
  run_threads(nranks, [&](Communicator& comm) {
    PreparedCollective ring("ring", Collective::allreduce, {}, comm.size(), comm.rank());
    std::vector<float> data(count, 1.0F);
    std::vector<StepEvent> mine;
    ExecuteOptions options;
    options.segment_bytes = 0;
    options.step_trace = [&](const StepEvent& event) { mine.push_back(event); };
    ring.run(comm, data.data(), data.data(), count, DataType::float32, ReduceOp::sum, options);
    const std::scoped_lock guard(lock);
    events[static_cast<std::size_t>(comm.rank())] = mine;
  });
  const Schedule schedule = make_schedule("ring", Collective::allreduce, nranks, {});
  for (int rank = 0; rank < nranks; ++rank) {
    const RankProgram program = schedule.program(rank);
    const auto& mine = events[static_cast<std::size_t>(rank)];
    const auto steps = std::count_if(mine.begin(), mine.end(), [](const StepEvent& e) { return e.kind == SpanKind::step; });
    EXPECT_EQ(steps, static_cast<std::ptrdiff_t>(program.steps.size())) << "rank " << rank;
    for (std::size_t step = 0; step < program.steps.size(); ++step)
      for (const Op& op : program.steps[step]) {
        const SpanKind kind = op.kind == OpKind::send ? SpanKind::send : SpanKind::recv;
        EXPECT_TRUE(std::any_of(mine.begin(), mine.end(), [&](const StepEvent& e) {
          return e.kind == kind && e.step == static_cast<int>(step) && e.peer == op.peer && e.bytes > 0 && e.end >= e.start;
        })) << "rank " << rank << " step " << step << " " << name_of(kind) << " peer " << op.peer;
      }
  }
}

TEST(StepTrace, GatherBringsEveryRanksSpansToRankZero) {
  constexpr int nranks = 3;
  std::vector<StepSpan> gathered;
  run_threads(nranks, [&](Communicator& comm) {
    PreparedCollective ring("ring", Collective::allreduce, {}, comm.size(), comm.rank());
    std::vector<float> data(300, 1.0F);
    StepTraceRecorder recorder;
    ExecuteOptions options;
    options.step_trace = recorder.hook();
    ring.run(comm, data.data(), data.data(), 300, DataType::float32, ReduceOp::sum, options);
    std::vector<StepSpan> spans = recorder.gather(comm, Clock::now() + std::chrono::seconds(30));
    if (comm.rank() == 0) gathered = std::move(spans);
    else EXPECT_TRUE(spans.empty());
  });
  std::set<int> ranks;
  for (const StepSpan& span : gathered) ranks.insert(span.rank);
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2}));
}

// Parameter-server incast: three workers share the server's one incoming link, which carries its
// whole 10 GB/s while they push and nothing after; every counter track ends at 0.
TEST(StepTrace, LinkLoadSamplesFollowTheFlows) {
  const Topology topology = make_preset_topology("switch:4,bw=10e9,lat=0.5e-6");
  simulator::FlowLevelOptions options;
  options.record_trace = true;
  simulator::FlowLevelModel model(topology, 0.0, options);
  const simulator::FlowPrediction predicted =
      model.predict(make_schedule("parameter_server", Collective::allreduce, 4), 1 << 18, DataType::float32);
  ASSERT_FALSE(predicted.load_samples.empty());
  const NodeId server = topology.endpoint_node(0);
  std::map<std::tuple<bool, NodeId, NodeId>, double> last;
  double previous = 0;
  double server_peak = 0;
  for (const simulator::LoadSample& sample : predicted.load_samples) {
    EXPECT_GE(sample.seconds, previous);
    previous = sample.seconds;
    last[{sample.is_switch, sample.from, sample.to}] = sample.bytes_per_second;
    if (!sample.is_switch && sample.to == server) server_peak = std::max(server_peak, sample.bytes_per_second);
  }
  EXPECT_NEAR(server_peak, 10e9, 1.0);
  for (const auto& [resource, rate] : last) EXPECT_EQ(rate, 0.0);
  const nlohmann::json trace = simulator::flow_trace_json(predicted, topology, {{"algorithm", "parameter_server"}});
  const auto counters = std::count_if(trace["traceEvents"].begin(), trace["traceEvents"].end(),
                                      [](const nlohmann::json& e) { return e["ph"] == "C"; });
  EXPECT_EQ(counters, static_cast<std::ptrdiff_t>(predicted.load_samples.size()));
}

}  // namespace
}  // namespace ringlab
