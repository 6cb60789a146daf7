// The flow-level model's rank orbits (simulator/flow_orbits.hpp): where they apply, simulating one
// rank an orbit gives the full simulation's prediction (time, every rank's finish, every
// resource's load) within 1e-6 relative, on every preset with a rank symmetry and every
// algorithm at N <= 1024; each condition is checked, and where one fails the model simulates
// every rank (both sides of each condition are covered).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/flow_level.hpp"
#include "tests/sanitizer_scale.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

using simulator::FlowLevelModel;
using simulator::FlowLevelOptions;
using simulator::FlowPrediction;

FlowPrediction predict_orbits_or_not(const Topology& topology, const Schedule& schedule, std::int64_t count,
                            std::int64_t segment_bytes, bool use_rank_orbits) {
  FlowLevelOptions options;
  options.segment_bytes = segment_bytes;
  options.use_rank_orbits = use_rank_orbits;
  return FlowLevelModel(topology, simulator::default_gamma_seconds_per_byte, options)
      .predict(schedule, count, DataType::float32);
}

void expect_within_1e6(double expected, double actual, const std::string& what) {
  EXPECT_LE(std::abs(actual - expected), 1e-6 * std::abs(expected)) << what << ": " << expected << " vs " << actual;
}

// Orbits or not, the same prediction; returns how many ranks a simulated rank stood for.
int expect_same_prediction(const std::string& preset, const std::string& algorithm, std::int64_t count,
                           std::int64_t segment_bytes) {
  const Topology topology = make_preset_topology(preset);
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, topology.num_endpoints());
  const std::string where = fmt::format("{} on {}, count {}, segments {}", algorithm, preset, count, segment_bytes);
  const FlowPrediction full = predict_orbits_or_not(topology, schedule, count, segment_bytes, false);
  const FlowPrediction fast = predict_orbits_or_not(topology, schedule, count, segment_bytes, true);
  expect_within_1e6(full.prediction.seconds, fast.prediction.seconds, where + ": time");
  EXPECT_EQ(full.prediction.rank_finish_seconds.size(), fast.prediction.rank_finish_seconds.size()) << where;
  for (std::size_t rank = 0; rank < full.prediction.rank_finish_seconds.size(); ++rank)
    expect_within_1e6(full.prediction.rank_finish_seconds[rank], fast.prediction.rank_finish_seconds[rank],
                 fmt::format("{}: rank {} finish", where, rank));
  EXPECT_EQ(full.loads.size(), fast.loads.size()) << where;
  for (std::size_t i = 0; i < std::min(full.loads.size(), fast.loads.size()); ++i) {
    EXPECT_EQ(full.loads[i].from, fast.loads[i].from) << where;
    EXPECT_EQ(full.loads[i].to, fast.loads[i].to) << where;
    expect_within_1e6(full.loads[i].bytes, fast.loads[i].bytes, where + ": bytes");
    expect_within_1e6(full.loads[i].busy_seconds, fast.loads[i].busy_seconds, where + ": busy");
  }
  FlowLevelOptions options;
  options.segment_bytes = segment_bytes;
  FlowLevelModel model(topology, simulator::default_gamma_seconds_per_byte, options);
  const int per_rank = model.ranks_per_simulated_rank(schedule, count);
  if (per_rank > 1) {
    EXPECT_LT(fast.transfers, full.transfers) << where;
  }
  return per_rank;
}

struct OrbitCase {
  std::string preset;
  int expected_orbit;  // of ring at an equal-chunk count: N / representatives, 1 where a condition fails
  bool every_algorithm = true;  // false: ring alone (the others' full simulations on ring:1024 take minutes)
};

class SimulatorRankOrbits : public ::testing::TestWithParam<OrbitCase> {};

TEST_P(SimulatorRankOrbits, EqualTheFullSimulationForEveryAlgorithm) {
  const OrbitCase& param = GetParam();
  const int nranks = make_preset_topology(param.preset).num_endpoints();
  if (!test_scale::runs_at(nranks)) GTEST_SKIP() << test_scale::skip_reason;
  const std::vector<std::string> algorithms =
      param.every_algorithm ? algorithm_names() : std::vector<std::string>{"ring"};
  for (const std::string& algorithm : algorithms) {
    // Their full simulations at N >= 256 take minutes in CI (N x C x 2(N-1) ops for nccl_ring, up to
    // N steps for bruck_bounded); the presets below 256 ranks check them on every condition.
    if (nranks >= 256 && (algorithm == "nccl_ring" || algorithm == "bruck_bounded")) continue;
    // Equal chunks (a multiple of every chunk count the algorithms use at these N), then unequal.
    const std::int64_t even = std::int64_t{nranks} * 1024;
    const int orbit = expect_same_prediction(param.preset, algorithm, even, 4096);
    if (algorithm == "ring") {
      EXPECT_EQ(orbit, param.expected_orbit) << param.preset;
    }
    EXPECT_EQ(expect_same_prediction(param.preset, algorithm, even + 3, 4096), 1) << "unequal chunks: " << algorithm;
    expect_same_prediction(param.preset, algorithm, even, 0);
  }
}

// Both sides: ring:N, switch:N and a dragonfly and nvswitch of whole units apply (dragonfly:2's
// group boundary with tied routes the router picks alike from each group); a torus row's end
// (tied routes picked by node id), one nvswitch unit (the leading digit does not turn) and a
// partial last unit (no declared symmetry) do not.
INSTANTIATE_TEST_SUITE_P(Presets, SimulatorRankOrbits,
                         ::testing::Values(OrbitCase{"ring:8", 8}, OrbitCase{"ring:64", 64}, OrbitCase{"ring:256", 256},
                                           OrbitCase{"ring:1024", 1024, false},
                                           OrbitCase{"torus2d:4x4", 1}, OrbitCase{"torus2d:8x16", 1},
                                           OrbitCase{"switch:16", 16}, OrbitCase{"nvswitch:8,nodes:40", 2},
                                           OrbitCase{"nvswitch:8,nodes:3", 1}, OrbitCase{"nvswitch:8,nodes:25", 1},
                                           OrbitCase{"dragonfly:8,routers=2,ranks=2,global=4", 8},
                                           OrbitCase{"dragonfly:2", 2, false}),
                         [](const ::testing::TestParamInfo<OrbitCase>& case_info) {
                           std::string name;
                           for (char c : case_info.param.preset) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// A switch of limited capacity stays put when the ranks turn: its one resource carries the flows
// of every rank, so each crossing weighs N in the max-min solve, and the orbits must still agree.
TEST(SimulatorRankOrbitsConditions, WeighAResourceEveryTurnKeeps) {
  constexpr int nranks = 6;
  Topology topology("blocking switch");
  for (int rank = 0; rank < nranks; ++rank) topology.add_endpoint(fmt::format("rank{}", rank));
  const NodeId hub = topology.add_switch("switch", 25e9);
  for (NodeId rank = 0; rank < nranks; ++rank) topology.add_link(rank, hub, LinkDirection{10e9, 1e-6});
  std::vector<NodeId> turn(nranks + 1, hub);
  for (int rank = 0; rank < nranks; ++rank) turn[static_cast<std::size_t>(rank)] = (rank + 1) % nranks;
  topology.set_rank_symmetry(RankSymmetry{{nranks}, {turn}});
  const Schedule ring = make_schedule("ring", Collective::allreduce, nranks);
  const std::int64_t count = nranks * 4096;
  EXPECT_EQ(FlowLevelModel(topology).ranks_per_simulated_rank(ring, count), nranks);
  const FlowPrediction full = predict_orbits_or_not(topology, ring, count, 0, false);
  const FlowPrediction fast = predict_orbits_or_not(topology, ring, count, 0, true);
  expect_within_1e6(full.prediction.seconds, fast.prediction.seconds, "blocking switch: time");
  ASSERT_EQ(full.loads.size(), fast.loads.size());
  for (std::size_t i = 0; i < full.loads.size(); ++i)
    expect_within_1e6(full.loads[i].bytes, fast.loads[i].bytes, "blocking switch: bytes");
  // The switch (25 GB/s for 6 flows) is the bottleneck, not the 10 GB/s links: each flow gets 25/6.
  const double step_bytes = static_cast<double>(count) * 4 / nranks;
  EXPECT_GT(full.prediction.seconds, 2.0 * (nranks - 1) * step_bytes / (25e9 / nranks));
}

TEST(SimulatorRankOrbitsConditions, NeedACirculantScheduleWhoseRangesDoNotWrap) {
  const Topology topology = make_preset_topology("ring:64");
  FlowLevelModel model(topology);
  const std::int64_t count = 64 * 1024;
  EXPECT_EQ(model.ranks_per_simulated_rank(make_schedule("ring", Collective::allreduce, 64), count), 64);
  // Explicit schedules, and interval_paired's ranges that wrap for some ranks, are simulated whole.
  EXPECT_EQ(model.ranks_per_simulated_rank(make_schedule("halving_doubling", Collective::allreduce, 64), count), 1);
  EXPECT_EQ(model.ranks_per_simulated_rank(make_schedule("interval_paired", Collective::allreduce, 64), count), 1);
  // A trace records every rank.
  FlowLevelOptions traced;
  traced.record_trace = true;
  FlowLevelModel tracing(topology, simulator::default_gamma_seconds_per_byte, traced);
  EXPECT_EQ(tracing.ranks_per_simulated_rank(make_schedule("ring", Collective::allreduce, 64), count), 1);
}

// One model keeps each schedule's orbits for its predictions: asked in any order, the answer
// follows the schedule's template and the count, and a prediction after it equals a fresh model's.
TEST(SimulatorRankOrbitsConditions, KeptOrbitsFollowTheScheduleAndCount) {
  const Topology topology = make_preset_topology("ring:64");
  FlowLevelModel model(topology);
  const std::int64_t even = 64 * 1024;
  const Schedule ring = make_schedule("ring", Collective::allreduce, 64);
  const Schedule interval_paired = make_schedule("interval_paired", Collective::allreduce, 64);
  EXPECT_EQ(model.ranks_per_simulated_rank(ring, even), 64);
  EXPECT_EQ(model.ranks_per_simulated_rank(ring, even + 3), 1);  // unequal chunks
  EXPECT_EQ(model.ranks_per_simulated_rank(interval_paired, even), 1);
  EXPECT_EQ(model.ranks_per_simulated_rank(ring, even), 64);
  for (const Schedule* schedule : {&interval_paired, &ring}) {
    const FlowPrediction kept = model.predict(*schedule, even, DataType::float32);
    const FlowPrediction fresh = FlowLevelModel(topology).predict(*schedule, even, DataType::float32);
    EXPECT_EQ(kept.prediction.seconds, fresh.prediction.seconds) << schedule->algorithm;
    EXPECT_EQ(kept.transfers, fresh.transfers) << schedule->algorithm;
  }
}

}  // namespace
}  // namespace ringlab
