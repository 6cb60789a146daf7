// The flow-level simulator (simulator/flow_level.hpp) and its max-min fair sharing
// (simulator/max_min.hpp): shared links split fairly, the parameter server's incast, multi-hop
// partners on a ring network, determinism, segments, equality with the closed form when no two
// flows share a resource, and both models' capabilities behind make_model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/max_min.hpp"
#include "simulator/predictor.hpp"
#include "topology/presets.hpp"
#include "topology/routing.hpp"
#include "simulator/scratch_receives.hpp"

namespace ringlab {
namespace {

using simulator::ClosedFormModel;
using simulator::FlowLevelModel;
using simulator::FlowLevelOptions;
using simulator::FlowPrediction;

constexpr double flow_gamma_seconds_per_byte = 3e-11;

// Ring all-reduce on 2 ranks of switch:2 (10 GB/s links, a route's latency alpha = 1 us): step 0
// sends and reduces half the buffer (b bytes), step 1 sends the other half back.
struct TwoRankRing {
  Topology topology = make_preset_topology("switch:2,bw=10e9,lat=0.5e-6");
  std::int64_t count = 1 << 20;
  double b = static_cast<double>(count) * 4.0 / 2;
  double alpha = 1e-6;
  double beta = 1 / 10e9;
  Schedule ring = make_schedule("ring", Collective::allreduce, 2);
};

std::vector<double> rates_of(const std::vector<double>& capacities, const std::vector<std::vector<std::int32_t>>& flows) {
  simulator::SharingProblem problem;
  problem.capacities = capacities;
  for (const auto& crossed : flows) problem.add_flow(crossed);
  simulator::SharingWorkspace workspace;
  std::vector<double> rates;
  simulator::max_min_rates(problem, workspace, rates);
  return rates;
}

TEST(MaxMinRates, SplitsASharedResourceEqually) {
  EXPECT_EQ(rates_of({10e9}, {{0}, {0}}), (std::vector<double>{5e9, 5e9}));
  EXPECT_EQ(rates_of({9e9}, {{0}, {0}, {0}}), (std::vector<double>{3e9, 3e9, 3e9}));
}

TEST(MaxMinRates, GivesWhatABottleneckLeavesToTheOthers) {
  // Flow 0 crosses resources 0 and 1, flow 1 only 0, flow 2 only 1. Resource 1 (4) is the first
  // bottleneck: flows 0 and 2 get 2 each; resource 0 (10) then has 8 left for flow 1.
  EXPECT_EQ(rates_of({10, 4}, {{0, 1}, {0}, {1}}), (std::vector<double>{2, 8, 2}));
  // A flow alone on its resources runs at the slowest of them; one crossing none is unlimited.
  const std::vector<double> rates = rates_of({7, 3, 5}, {{0, 1, 2}, {}});
  EXPECT_EQ(rates[0], 3);
  EXPECT_TRUE(std::isinf(rates[1]));
}

// Progressive filling as written, one bottleneck a round found by scanning every resource.
std::vector<double> plain_filling(const simulator::SharingProblem& problem) {
  const auto nflows = static_cast<std::size_t>(problem.num_flows());
  const auto crossings_of = [&](std::size_t flow) {  // indexes into problem.resources
    return std::pair{static_cast<std::size_t>(problem.flow_start[flow]), static_cast<std::size_t>(problem.flow_start[flow + 1])};
  };
  const auto weight = [&](std::size_t i) { return problem.weights.empty() ? 1.0 : problem.weights[i]; };
  std::vector<double> left = problem.capacities;
  std::vector<double> rates(nflows, std::numeric_limits<double>::infinity());
  std::vector<bool> frozen(nflows, false);
  for (;;) {
    std::vector<double> unfrozen(left.size(), 0.0);
    for (std::size_t f = 0; f < nflows; ++f)
      for (auto [i, end] = crossings_of(f); i < end && !frozen[f]; ++i)
        unfrozen[static_cast<std::size_t>(problem.resources[i])] += weight(i);
    std::size_t bottleneck = left.size();
    for (std::size_t r = 0; r < left.size(); ++r)
      if (unfrozen[r] > 0 &&
          (bottleneck == left.size() || left[r] / unfrozen[r] < left[bottleneck] / unfrozen[bottleneck]))
        bottleneck = r;
    if (bottleneck == left.size()) return rates;
    const double share = left[bottleneck] / unfrozen[bottleneck];
    for (std::size_t f = 0; f < nflows; ++f) {
      const auto [first, end] = crossings_of(f);
      const auto crossed = std::span(problem.resources).subspan(first, end - first);
      if (frozen[f] || std::find(crossed.begin(), crossed.end(), static_cast<std::int32_t>(bottleneck)) == crossed.end())
        continue;
      frozen[f] = true;
      rates[f] = share;
      for (std::size_t i = first; i < end; ++i) left[static_cast<std::size_t>(problem.resources[i])] -= share * weight(i);
    }
  }
}

// Random problems, weighted or not, their crossings by resource given (in a shuffled order) or
// sorted by max_min_rates: the heap's one entry per resource, moved up when its share grew, finds
// the bottlenecks plain filling finds.
TEST(MaxMinRates, AgreesWithPlainProgressiveFillingOnRandomProblems) {
  std::mt19937 random(33);
  for (int trial = 0; trial < 400; ++trial) {
    simulator::SharingProblem problem;
    const int nresources = std::uniform_int_distribution<int>(1, 24)(random);
    for (int r = 0; r < nresources; ++r)
      problem.capacities.push_back(std::uniform_real_distribution<double>(1, 100)(random));
    const bool weighted = trial % 3 == 1;
    const int nflows = std::uniform_int_distribution<int>(1, 50)(random);
    for (int f = 0; f < nflows; ++f) {
      std::vector<std::int32_t> crossed(static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 6)(random)));
      for (std::int32_t& resource : crossed)
        resource = std::uniform_int_distribution<std::int32_t>(0, nresources - 1)(random);
      std::vector<double> weights(crossed.size());
      for (double& w : weights) w = std::uniform_int_distribution<int>(1, 4)(random) * 0.5;
      if (weighted)
        problem.add_flow(crossed, weights);
      else
        problem.add_flow(crossed);
    }
    if (trial % 3 == 2) {  // the crossings by resource, as a caller gives them
      std::vector<std::vector<std::int32_t>> by_resource(static_cast<std::size_t>(nresources));
      for (int f = 0; f < nflows; ++f) {
        const auto flow = static_cast<std::size_t>(f);
        for (auto i = static_cast<std::size_t>(problem.flow_start[flow]); i < static_cast<std::size_t>(problem.flow_start[flow + 1]); ++i)
          by_resource[static_cast<std::size_t>(problem.resources[i])].push_back(f);
      }
      for (auto& flows : by_resource) {
        std::shuffle(flows.begin(), flows.end(), random);
        problem.resource_start.push_back(static_cast<std::int32_t>(problem.resource_flows.size()));
        problem.resource_flows.insert(problem.resource_flows.end(), flows.begin(), flows.end());
      }
      problem.resource_start.push_back(static_cast<std::int32_t>(problem.resource_flows.size()));
    }
    simulator::SharingWorkspace workspace;
    std::vector<double> rates;
    simulator::max_min_rates(problem, workspace, rates);
    const std::vector<double> expected = plain_filling(problem);
    ASSERT_EQ(rates.size(), expected.size());
    for (std::size_t f = 0; f < rates.size(); ++f) {
      if (std::isinf(expected[f])) {
        EXPECT_TRUE(std::isinf(rates[f])) << "trial " << trial << " flow " << f;
        continue;
      }
      EXPECT_NEAR(rates[f], expected[f], 1e-9 * expected[f]) << "trial " << trial << " flow " << f;
    }
  }
}

// Ranks 0, 1 under switch A, ranks 2, 3 under switch B; A and B joined by one slower link.
Topology dumbbell(double edge_bandwidth, double middle_bandwidth, double latency) {
  Topology topology("dumbbell");
  for (int rank = 0; rank < 4; ++rank) topology.add_endpoint(fmt::format("rank{}", rank));
  const NodeId a = topology.add_switch("A");
  const NodeId b = topology.add_switch("B");
  topology.add_link(0, a, {edge_bandwidth, latency});
  topology.add_link(1, a, {edge_bandwidth, latency});
  topology.add_link(a, b, {middle_bandwidth, latency});
  topology.add_link(2, b, {edge_bandwidth, latency});
  topology.add_link(3, b, {edge_bandwidth, latency});
  topology.validate();
  return topology;
}

// One step: `pairs` (sender, receiver) transfer the whole buffer (one chunk).
Schedule one_step(int nranks, const std::vector<std::pair<int, int>>& pairs, OpKind receive = OpKind::recv) {
  Schedule schedule;
  schedule.algorithm = "hand-written";
  schedule.nranks = nranks;
  schedule.nchunks = 1;
  schedule.programs.assign(static_cast<std::size_t>(nranks), RankProgram{{Step{}}});
  for (const auto& [sender, receiver] : pairs) {
    schedule.programs[static_cast<std::size_t>(sender)].steps[0].push_back({OpKind::send, receiver, {0, 1}});
    schedule.programs[static_cast<std::size_t>(receiver)].steps[0].push_back({receive, sender, {0, 1}});
  }
  return schedule;
}

TEST(SimulatorFlowLevel, TwoFlowsOnOneLinkEachGetHalfItsBandwidth) {
  const Topology topology = dumbbell(100e9, 10e9, 1e-6);
  const std::int64_t count = 1 << 20;
  const double bytes = count * 4.0;
  FlowLevelModel model(topology, 0.0);
  const double latency = 3e-6;  // three links

  const FlowPrediction alone = model.predict(one_step(4, {{0, 2}}), count, DataType::float32);
  EXPECT_NEAR(alone.prediction.seconds, latency + bytes / 10e9, 1e-15);
  const FlowPrediction both = model.predict(one_step(4, {{0, 2}, {1, 3}}), count, DataType::float32);
  EXPECT_NEAR(both.prediction.seconds, latency + bytes / 5e9, 1e-15);
  EXPECT_EQ(both.transfers, 2);
  // The middle link carried both flows and was busy the whole time; each edge link one flow.
  const DirectedLinkId middle = Topology::forward_of(2);
  const auto load = std::find_if(both.loads.begin(), both.loads.end(), [&](const simulator::ResourceLoad& l) {
    return !l.is_switch && l.from == topology.directed_link(middle).from && l.to == topology.directed_link(middle).to;
  });
  ASSERT_NE(load, both.loads.end());
  EXPECT_DOUBLE_EQ(load->bytes, 2 * bytes);
  EXPECT_NEAR(load->busy_seconds, bytes / 5e9, 1e-15);
  EXPECT_NEAR(load->utilisation, 2 * bytes / (10e9 * both.prediction.seconds), 1e-12);
  // Opposite directions of a full-duplex link do not share.
  const FlowPrediction crossing = model.predict(one_step(4, {{0, 2}, {3, 1}}), count, DataType::float32);
  EXPECT_NEAR(crossing.prediction.seconds, latency + bytes / 10e9, 1e-15);
  // The closed form has no contention: both flows at the full 10 GB/s.
  ClosedFormModel closed(topology, 0.0);
  EXPECT_NEAR(closed.predict(one_step(4, {{0, 2}, {1, 3}}), count, DataType::float32).seconds, latency + bytes / 10e9,
              1e-15);
}

// Ranks 0 and 2 on CPU 0, 1 and 3 on CPU 1, links written for half a core (Topology::cpu_sharing):
// a busy rank whose CPU-mate waits gets 1 / (1 + cost) of the core, so its links and its
// reductions run 2 / (1 + cost) times as fast as written; with both ranks of each CPU busy, as
// written, whatever the cost.
TEST(SimulatorFlowLevel, CpuSharingGivesABusyRankWhatItsWaitingMateLeaves) {
  const std::int64_t count = 1 << 20;
  const double bytes = count * 4.0;
  const double latency = 1e-6;  // two links of 0.5 us
  const Topology written = make_preset_topology("switch:4,bw=10e9,lat=0.5e-6");
  FlowLevelModel as_written(written, flow_gamma_seconds_per_byte);
  for (double cost : {0.0, 0.3, 1.0}) {
    Topology topology = written;
    topology.set_cpu_sharing({{0, 1, 0, 1}, 0.5, cost});
    FlowLevelModel model(topology, flow_gamma_seconds_per_byte);
    const double speed_up = 2 / (1 + cost);
    const Schedule alone = one_step(4, {{0, 1}}, OpKind::recv_reduce);
    EXPECT_NEAR(model.predict(alone, count, DataType::float32).prediction.seconds,
                latency + bytes / (10e9 * speed_up) + flow_gamma_seconds_per_byte * bytes / speed_up, 1e-12)
        << cost;
    const Schedule both = one_step(4, {{0, 1}, {2, 3}});
    EXPECT_NEAR(model.predict(both, count, DataType::float32).prediction.seconds, latency + bytes / 10e9, 1e-12) << cost;
    // The closed form keeps the written share.
    EXPECT_NEAR(ClosedFormModel(topology, flow_gamma_seconds_per_byte).predict(alone, count, DataType::float32).seconds,
                latency + bytes / 10e9 + flow_gamma_seconds_per_byte * bytes, 1e-12);
  }
  // Cost 1 is the topology without CPU sharing, to the last bit, for a whole all-reduce.
  Topology static_share = written;
  static_share.set_cpu_sharing({{0, 1, 0, 1}, 0.5, 1.0});
  for (const char* algorithm : {"ring", "parameter_server", "recursive_doubling"}) {
    const Schedule schedule = make_schedule(algorithm, Collective::allreduce, 4);
    EXPECT_EQ(FlowLevelModel(static_share, flow_gamma_seconds_per_byte).predict(schedule, count, DataType::float32).prediction.seconds,
              as_written.predict(schedule, count, DataType::float32).prediction.seconds)
        << algorithm;
  }
  // A parameter server's rank 0 receives from 1, 2 and 3; rank 2 (its CPU-mate) is done after its
  // own push, so with a waiting rank costing nothing, rank 0 finishes sooner.
  Topology free_waiting = written;
  free_waiting.set_cpu_sharing({{0, 1, 0, 1}, 0.5, 0.0});
  const Schedule server = make_schedule("parameter_server", Collective::allreduce, 4);
  EXPECT_LT(FlowLevelModel(free_waiting, flow_gamma_seconds_per_byte).predict(server, count, DataType::float32).prediction.seconds,
            as_written.predict(server, count, DataType::float32).prediction.seconds);
}

// The executor lands a receive in scratch when a send of its step still reads those elements
// from the output, or another receive of the step writes them (scratch_receives.hpp). With a copy
// cost (the calibrated topologies) such a receive is combined only after the step's transfers:
// reduced at gamma x its bytes, or copied at copy_cost_ratio x gamma, with no overlap; without
// one (the presets) every receive is priced alike.
TEST(SimulatorFlowLevel, ScratchReceivesAreCombinedAfterTheStepsTransfers) {
  const std::int64_t count = 1 << 20;
  const double bytes = count * 4.0;
  const double ratio = 0.625;
  const Topology plain = make_preset_topology("fully-connected:4,bw=10e9,lat=0.5e-6");
  Topology copying = plain;
  copying.set_copy_cost_ratio(ratio);
  // In pieces of 1 MiB (4 per transfer), a reduction overlaps the next piece's transfer
  // (gamma < beta), leaving one piece's; in scratch the whole reduction comes after the transfer.
  FlowLevelOptions in_pieces;
  in_pieces.segment_bytes = 1 << 20;
  const double piece = static_cast<double>(in_pieces.segment_bytes);
  const double lost_overlap = flow_gamma_seconds_per_byte * (bytes - piece);
  auto extra = [&](const char* algorithm, Placement placement, const FlowLevelOptions& options) {
    const Schedule schedule = make_schedule(algorithm, Collective::allreduce, 4);
    return FlowLevelModel(copying, flow_gamma_seconds_per_byte, options).predict(schedule, count, DataType::float32, placement).prediction.seconds -
           FlowLevelModel(plain, flow_gamma_seconds_per_byte, options).predict(schedule, count, DataType::float32, placement).prediction.seconds;
  };
  // recursive_doubling sends and receives its whole buffer in both steps: out of place its first
  // step's sends read the input, the second's the output; in place both read the output.
  EXPECT_NEAR(extra("recursive_doubling", Placement::out_of_place, in_pieces), lost_overlap, 1e-12);
  EXPECT_NEAR(extra("recursive_doubling", Placement::in_place, in_pieces), 2 * lost_overlap, 1e-12);
  // Whole transfers: a reduction overlaps nothing either way.
  EXPECT_NEAR(extra("recursive_doubling", Placement::in_place, {}), 0.0, 1e-12);
  // These never receive in a step what they send or another receive writes: nothing changes.
  for (const char* algorithm : {"ring", "interval_paired", "halving_doubling"})
    for (Placement placement : {Placement::out_of_place, Placement::in_place})
      EXPECT_EQ(extra(algorithm, placement, in_pieces), 0.0) << algorithm;
  // A plain receive of what the step also sends (2 ranks swapping chunk 0 in place) is copied in
  // from scratch: copy_cost_ratio x gamma x its bytes on top.
  Schedule swap = make_explicit("swap", Collective::allreduce, 2, 1);
  for (int rank = 0; rank < 2; ++rank) {
    add_op(swap, rank, 0, {OpKind::send, 1 - rank, {0, 1}});
    add_op(swap, rank, 0, {OpKind::recv, 1 - rank, {0, 1}});
  }
  const Topology pair = make_preset_topology("fully-connected:2,bw=10e9,lat=0.5e-6");
  Topology pair_copying = pair;
  pair_copying.set_copy_cost_ratio(ratio);
  EXPECT_NEAR(FlowLevelModel(pair_copying, flow_gamma_seconds_per_byte).predict(swap, count, DataType::float32, Placement::in_place).prediction.seconds -
                  FlowLevelModel(pair, flow_gamma_seconds_per_byte).predict(swap, count, DataType::float32, Placement::in_place).prediction.seconds,
              ratio * flow_gamma_seconds_per_byte * bytes, 1e-12);
}

// With receive fragments (the shared-memory transport's slots), a receive combined on arrival
// reduces each fragment as it lands: the reduction overlaps its own transfer and ends one
// fragment's reduction after the last byte, where without them it ends a whole piece's after.
TEST(SimulatorFlowLevel, ReceiveFragmentsOverlapAReductionWithItsOwnTransfer) {
  // Whole transfers: 2 (alpha + b beta) + b gamma without fragments.
  const TwoRankRing two;
  Topology fragmented = two.topology;
  fragmented.set_receive_fragment_bytes(128 * 1024);
  const double gamma = 2e-11;
  EXPECT_NEAR(FlowLevelModel(two.topology, gamma).predict(two.ring, two.count, DataType::float32).prediction.seconds,
              2 * (two.alpha + two.b * two.beta) + two.b * gamma, 1e-15);
  EXPECT_NEAR(FlowLevelModel(fragmented, gamma).predict(two.ring, two.count, DataType::float32).prediction.seconds,
              2 * (two.alpha + two.b * two.beta) + 128 * 1024 * gamma, 1e-15);
  // Reduction-bound (gamma > beta): the reduction, started with the first byte, is the limit.
  const double slow_gamma = 3e-10;
  EXPECT_NEAR(FlowLevelModel(fragmented, slow_gamma).predict(two.ring, two.count, DataType::float32).prediction.seconds,
              two.alpha + two.b * slow_gamma + two.alpha + two.b * two.beta, 1e-15);
}

// The flags of a step plan's receive pieces: landing in scratch, or (`in_place`) reducing a left
// operand found in the output.
std::vector<unsigned char> receive_flags(const StepPlan& plan, bool in_place = false) {
  std::vector<unsigned char> flags;
  for (const PlannedPiece& receive : plan.receives)
    flags.push_back(in_place ? (receive.kind == OpKind::recv_reduce && receive.reads_output) : receive.to_scratch);
  return flags;
}

// The rule itself, step by step for one rank (pieces of 4 elements of a 16-element buffer in 4 chunks).
TEST(SimulatorScratchReceives, FollowsTheExecutorsRuleAndItsRecordOfTheOutput) {
  const Op send_all{OpKind::send, 1, {0, 4}};
  const Op reduce_all{OpKind::recv_reduce, 1, {0, 4}};
  simulator::ScratchReceives out_of_place(2, 16, 4, 4, Placement::out_of_place);
  const StepPlan& first = out_of_place.next_step(0, std::vector<Op>{send_all, reduce_all});
  EXPECT_EQ(receive_flags(first), (std::vector<unsigned char>{0, 0, 0, 0}));  // the sends read the input
  EXPECT_EQ(receive_flags(first, true), (std::vector<unsigned char>{0, 0, 0, 0}));  // out of place: input (op) received
  const StepPlan& second = out_of_place.next_step(0, std::vector<Op>{send_all, reduce_all});
  EXPECT_EQ(receive_flags(second), (std::vector<unsigned char>{1, 1, 1, 1}));  // now the output holds them
  EXPECT_EQ(receive_flags(second, true), (std::vector<unsigned char>{1, 1, 1, 1}));  // and they reduce in place
  simulator::ScratchReceives in_place(2, 16, 4, 4, Placement::in_place);
  // A send of chunk 0 and a receive of chunks 1-2 (the ring's pattern): nothing shared.
  const StepPlan& ring = in_place.next_step(0, std::vector<Op>{{OpKind::send, 1, {0, 1}}, {OpKind::recv_reduce, 1, {1, 3}}});
  EXPECT_EQ(receive_flags(ring), (std::vector<unsigned char>{0, 0}));
  EXPECT_EQ(receive_flags(ring, true), (std::vector<unsigned char>{1, 1}));  // an in-place call: all in place
  // Two receives writing chunk 2: both of their pieces there, and no other.
  EXPECT_EQ(receive_flags(in_place.next_step(1, std::vector<Op>{{OpKind::recv, 0, {1, 3}}, {OpKind::recv_reduce, 0, {2, 4}}})),
            (std::vector<unsigned char>{0, 1, 1, 0}));
  // A wrapping send (chunks 3, 0) read from the output: the receive of chunk 0 shares it.
  EXPECT_EQ(receive_flags(in_place.next_step(
                0, std::vector<Op>{{OpKind::send, 1, {3, 5}}, {OpKind::recv, 1, {0, 1}}, {OpKind::recv, 1, {1, 2}}})),
            (std::vector<unsigned char>{1, 0}));
  // Whole transfers (the flow-level model without segments): one piece per element range.
  simulator::ScratchReceives whole(2, 16, 4, std::numeric_limits<std::int64_t>::max(), Placement::in_place);
  EXPECT_EQ(receive_flags(whole.next_step(0, std::vector<Op>{send_all, reduce_all})), (std::vector<unsigned char>{1}));
}

TEST(SimulatorFlowLevel, ParameterServerIncastTakesNMinusOneTimesTheServerLinkTime) {
  for (int nranks : {2, 4, 9, 32}) {
    const Topology topology = make_preset_topology(fmt::format("switch:{},bw=10e9,lat=0.5e-6", nranks));
    FlowLevelOptions options;
    options.record_trace = true;
    FlowLevelModel model(topology, 0.0, options);
    const std::int64_t count = 1 << 18;
    const double n = count * 4.0;
    const double link_time = n / 10e9;
    const FlowPrediction predicted =
        model.predict(make_schedule("parameter_server", Collective::allreduce, nranks), count, DataType::float32);
    // Step 0: N-1 workers push n bytes each into the server's one link; step 1: it sends them back.
    EXPECT_NEAR(predicted.prediction.seconds, 2 * (1e-6 + (nranks - 1) * link_time), 1e-12) << nranks;
    for (const simulator::TraceSpan& span : predicted.trace)
      if (span.peer == 0 && span.step == 0) {  // a worker's push: it shares the server's link the whole time
        EXPECT_NEAR(span.end_seconds - span.start_seconds, 1e-6 + (nranks - 1) * link_time, 1e-12);
      }
    const NodeId server = topology.endpoint_node(0);
    for (const simulator::ResourceLoad& load : predicted.loads)
      if (load.to == server) {
        EXPECT_NEAR(load.busy_seconds, (nranks - 1) * link_time, 1e-12);
      }
  }
}

TEST(SimulatorFlowLevel, IntervalPairedPaysForMultiHopPartnersOnARingNetworkOnly) {
  const int nranks = 8;
  const std::int64_t count = 8 * 4096;
  const Schedule paired = make_schedule("interval_paired", Collective::allreduce, nranks);
  const Schedule ring = make_schedule("ring", Collective::allreduce, nranks);
  const Topology ring_network = make_preset_topology("ring:8,bw=25e9,lat=1e-6");
  const Topology switched = make_preset_topology("switch:8,bw=25e9,lat=0.5e-6");
  FlowLevelModel on_ring(ring_network, flow_gamma_seconds_per_byte);
  FlowLevelModel on_switch(switched, flow_gamma_seconds_per_byte);
  ClosedFormModel closed_on_ring(ring_network, flow_gamma_seconds_per_byte);
  ClosedFormModel closed_on_switch(switched, flow_gamma_seconds_per_byte);

  // On the switch every route is two private hops: nothing is shared, flow = closed form.
  const double switch_flow = on_switch.predict(paired, count, DataType::float32).prediction.seconds;
  EXPECT_NEAR(switch_flow, closed_on_switch.predict(paired, count, DataType::float32).seconds, 1e-12 * switch_flow);
  // On the ring network a partner d hops away sends over d links, and those links carry the flows
  // of the ranks in between too: more time than the closed form, which only adds the latencies.
  const FlowPrediction ring_flow = on_ring.predict(paired, count, DataType::float32);
  const double ring_closed = closed_on_ring.predict(paired, count, DataType::float32).seconds;
  EXPECT_GT(ring_flow.prediction.seconds, 1.2 * ring_closed);
  // Every byte is carried once per hop.
  Router router(ring_network);
  double hop_bytes = 0;
  for (int rank = 0; rank < nranks; ++rank) {
    const RankProgram program = paired.program(rank);
    for (const Step& step : program.steps)
      for (const Op& op : step)
        if (op.kind == OpKind::send)
          hop_bytes += static_cast<double>(element_count(op.chunks, count, paired.nchunks)) * 4.0 *
                       router.route(rank, op.peer).hops();
  }
  double carried = 0;
  for (const simulator::ResourceLoad& load : ring_flow.loads) carried += load.bytes;
  EXPECT_NEAR(carried, hop_bytes, 1e-9 * hop_bytes);
  // The ring algorithm talks to neighbours only: one hop, nothing shared, flow = closed form.
  const double ring_algorithm = on_ring.predict(ring, count, DataType::float32).prediction.seconds;
  EXPECT_NEAR(ring_algorithm, closed_on_ring.predict(ring, count, DataType::float32).seconds, 1e-12 * ring_algorithm);
}

TEST(SimulatorFlowLevel, EqualsTheClosedFormWhenNothingIsShared) {
  // On switch:N each rank's up and down links are its ports: the closed form's per-port sums are
  // what max-min sharing gives when a rank's concurrent transfers are the same size (counts that
  // every chunk divides evenly), so every algorithm and collective must agree.
  for (int nranks : {2, 3, 4, 5, 8, 12, 16}) {
    const Topology topology = make_preset_topology(fmt::format("switch:{},bw=10e9,lat=0.5e-6", nranks));
    FlowLevelModel flow(topology, flow_gamma_seconds_per_byte);
    ClosedFormModel closed(topology, flow_gamma_seconds_per_byte);
    for (const AlgorithmInfo& info : algorithms()) {
      for (Collective collective : info.collectives) {
        const Schedule schedule = make_schedule(info.name, collective, nranks);
        for (std::int64_t chunks_each : {1, 1000, 65536}) {
          const std::int64_t count = chunks_each * schedule.nchunks;
          const double expected = closed.predict(schedule, count, DataType::float32).seconds;
          const FlowPrediction predicted = flow.predict(schedule, count, DataType::float32);
          // double_binary_tree's ranks move 1 to 4 chunks a step, so a rank's concurrent flows meet
          // different bottlenecks and max-min sharing finishes some sooner than the per-port sums.
          if (info.name == "double_binary_tree")
            EXPECT_LE(predicted.prediction.seconds, expected * (1 + 1e-9)) << info.name << " N " << nranks << " count " << count;
          else
            EXPECT_NEAR(predicted.prediction.seconds, expected, 1e-9 * expected)
                << info.name << " " << name_of(collective) << " N " << nranks << " count " << count;
          EXPECT_EQ(predicted.prediction.steps, schedule.num_steps());
        }
      }
    }
  }
}

TEST(SimulatorFlowLevel, SegmentsOverlapReducingOnePieceWithReceivingTheNext) {
  // Whole: 2 (alpha + b beta) + b gamma. In k pieces the reduction of each piece overlaps the
  // next one's transfer (gamma < beta here), leaving one piece's reduction.
  const TwoRankRing two;
  const double gamma = 2e-11;
  FlowLevelModel whole(two.topology, gamma);
  EXPECT_NEAR(whole.predict(two.ring, two.count, DataType::float32).prediction.seconds,
              2 * (two.alpha + two.b * two.beta) + two.b * gamma, 1e-15);
  FlowLevelOptions options;
  options.segment_bytes = 256 * 1024;
  FlowLevelModel segmented(two.topology, gamma, options);
  EXPECT_NEAR(segmented.predict(two.ring, two.count, DataType::float32).prediction.seconds,
              2 * (two.alpha + two.b * two.beta) + static_cast<double>(options.segment_bytes) * gamma, 1e-12);
}

// Predictions (4 MiB of float32, default gamma) recorded before issue 33's solver work (commit
// 7eea1a6: a heap entry per changed share, the group's problem copied and sorted after its
// search), on presets where flows share links, with and without rank orbits; they hold within 1e-6.
TEST(SimulatorFlowLevel, PredictsAsBeforeTheSolverWasSpedUp) {
  struct Recorded {
    const char* preset;
    const char* algorithm;
    std::int64_t segment_bytes;
    double seconds;
  };
  const Recorded recorded[] = {
      {"ring:64", "interval_paired", 4096, 0.0072912147200000421},
      {"ring:64", "ring", 4096, 0.00071434943999996168},
      {"ring:256", "interval_paired", 1 << 20, 0.029455612799999999},
      {"ring:256", "halving_doubling", 4096, 0.029147265920000148},
      {"ring:1024", "interval_paired", 1 << 20, 0.11689251520000001},
      {"torus2d:8x16", "halving_doubling", 4096, 0.00075334528000000451},
      {"torus2d:16x16", "interval_paired", 0, 0.0014523931428571432},
      {"torus2d:16x16", "bine", 1 << 20, 0.00077107665217194317},
      {"torus2d:32x32", "ring", 1 << 20, 0.0048462374400002452},
      {"switch:16", "parameter_server", 0, 0.016359785600000003},
      {"nvswitch:8,nodes:3", "bine", 4096, 0.00090216298666675489},
      {"nvswitch:8,nodes:4", "ring", 4096, 0.00069793151999996425},
      {"nvswitch:8,nodes:4", "swing", 1 << 20, 0.00055164757333333344},
      {"dragonfly:8,routers=2,ranks=2,global=4", "ring", 0, 0.00083678175999999857},
      {"dragonfly:8,routers=2,ranks=2,global=4", "recursive_doubling", 4096, 0.0028605970399999772},
      {"dragonfly:8,routers=2,ranks=2,global=4", "interval_paired", 1 << 20, 0.0015445161866666666},
  };
  for (const Recorded& row : recorded) {
    const Topology topology = make_preset_topology(row.preset);
    const Schedule schedule = make_schedule(row.algorithm, Collective::allreduce, topology.num_endpoints());
    FlowLevelOptions options;
    options.segment_bytes = row.segment_bytes;
    const double seconds = FlowLevelModel(topology, simulator::default_gamma_seconds_per_byte, options)
                               .predict(schedule, std::int64_t{1} << 20, DataType::float32)
                               .prediction.seconds;
    EXPECT_NEAR(seconds, row.seconds, 1e-6 * row.seconds)
        << row.algorithm << " on " << row.preset << ", segments " << row.segment_bytes;
  }
}

TEST(SimulatorFlowLevel, ReportsItsProgressWithinOnePrediction) {
  // Ring on torus2d:16x16 handles a few hundred thousand events: a report every progress_events,
  // each the share of the 256 ranks' 510 steps finished, growing, below 1 (the last steps finish
  // after the last report); the prediction is the one without reports.
  const Topology topology = make_preset_topology("torus2d:16x16");
  const Schedule schedule = make_schedule("ring", Collective::allreduce, 256);
  std::vector<double> reports;
  FlowLevelOptions options;
  options.progress = [&reports](double fraction) { reports.push_back(fraction); };
  const FlowPrediction reported = FlowLevelModel(topology, flow_gamma_seconds_per_byte, options)
                                      .predict(schedule, std::int64_t{1} << 24, DataType::float32);
  const FlowPrediction silent =
      FlowLevelModel(topology, flow_gamma_seconds_per_byte).predict(schedule, std::int64_t{1} << 24, DataType::float32);
  EXPECT_EQ(reported.prediction.seconds, silent.prediction.seconds);
  ASSERT_LE(static_cast<std::int64_t>(reports.size()), reported.events / simulator::progress_events);
  ASSERT_GE(reports.size(), 2u);
  EXPECT_GT(reports.front(), 0.0);
  EXPECT_LT(reports.back(), 1.0);
  for (std::size_t i = 1; i < reports.size(); ++i) EXPECT_GT(reports[i], reports[i - 1]);
}

TEST(SimulatorFlowLevel, IsDeterministicRunToRun) {
  for (const char* preset : {"torus2d:4x4", "pcie-tree,switches=2,gpus_per_switch=4", "host-shm:6,cores=2",
                             "nvswitch:4,nodes:4"}) {
    const Topology topology = make_preset_topology(preset);
    const int nranks = topology.num_endpoints();
    FlowLevelOptions options;
    options.record_trace = true;
    options.segment_bytes = 64 * 1024;
    for (const AlgorithmInfo& info : algorithms()) {
      const Schedule schedule = make_schedule(info.name, Collective::allreduce, nranks);
      FlowLevelModel first(topology, flow_gamma_seconds_per_byte, options);
      FlowLevelModel second(topology, flow_gamma_seconds_per_byte, options);
      const FlowPrediction a = first.predict(schedule, 1234567, DataType::float32);
      const FlowPrediction again = first.predict(schedule, 1234567, DataType::float32);
      const FlowPrediction b = second.predict(schedule, 1234567, DataType::float32);
      for (const FlowPrediction* other : {&again, &b}) {
        EXPECT_EQ(a.prediction.seconds, other->prediction.seconds) << preset << " " << info.name;
        EXPECT_EQ(a.prediction.rank_finish_seconds, other->prediction.rank_finish_seconds);
        EXPECT_EQ(a.events, other->events);
        ASSERT_EQ(a.loads.size(), other->loads.size());
        for (std::size_t i = 0; i < a.loads.size(); ++i) EXPECT_EQ(a.loads[i].busy_seconds, other->loads[i].busy_seconds);
        ASSERT_EQ(a.trace.size(), other->trace.size());
        for (std::size_t i = 0; i < a.trace.size(); ++i) EXPECT_EQ(a.trace[i].end_seconds, other->trace[i].end_seconds);
      }
    }
  }
}

TEST(SimulatorFlowLevel, ReportsPerRankFinishTimesAndCapsTheTrace) {
  const Topology topology = make_preset_topology("switch:6");
  FlowLevelOptions options;
  options.record_trace = true;
  options.max_trace_spans = 10;
  FlowLevelModel model(topology, flow_gamma_seconds_per_byte, options);
  const FlowPrediction predicted =
      model.predict(make_schedule("ring", Collective::allreduce, 6), 6000, DataType::float32);
  ASSERT_EQ(predicted.prediction.rank_finish_seconds.size(), 6u);
  EXPECT_EQ(*std::max_element(predicted.prediction.rank_finish_seconds.begin(),
                              predicted.prediction.rank_finish_seconds.end()),
            predicted.prediction.seconds);
  EXPECT_EQ(predicted.trace.size(), 10u);
  EXPECT_TRUE(predicted.trace_truncated);
  EXPECT_EQ(predicted.transfers, 6 * 10);  // 2 (N - 1) steps, one transfer per rank each
}

TEST(SimulatorFlowLevel, RefusesBadInput) {
  const Topology topology = make_preset_topology("switch:4");
  EXPECT_THROW(FlowLevelModel(topology, -1.0), std::invalid_argument);
  FlowLevelOptions negative;
  negative.segment_bytes = -1;
  EXPECT_THROW(FlowLevelModel(topology, 0.0, negative), std::invalid_argument);
  FlowLevelModel model(topology);
  EXPECT_THROW(model.predict(make_schedule("ring", Collective::allreduce, 5), 100, DataType::float32),
               std::invalid_argument);
  // A receive no rank sends: the receiver would wait for ever; the model says who and where.
  Schedule unmatched = one_step(4, {{0, 1}});
  unmatched.programs[2].steps[0].push_back({OpKind::recv, 3, {0, 1}});
  try {
    model.predict(unmatched, 100, DataType::float32);
    ADD_FAILURE() << "an unmatched receive was simulated";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("rank 2"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("do not match"), std::string::npos) << error.what();
  }
}

// make_model gives each model's optional capabilities: the closed form prepares a schedule for
// many counts, the flow-level model reports its flows (loads, and the timeline it was asked to
// record); each agrees with the model's own seconds.
TEST(SimulatorPredictor, EachModelOffersItsCapabilities) {
  const Topology topology = make_preset_topology("switch:4,bw=10e9,lat=0.5e-6");
  const Schedule schedule = make_schedule("halving_doubling", Collective::allreduce, 4);
  const simulator::Predictor closed_form = simulator::make_model("closed-form", topology, gamma_seconds_per_byte);
  ASSERT_TRUE(closed_form.prepare);
  EXPECT_FALSE(closed_form.flows);
  const simulator::ScheduleSeconds prepared = closed_form.prepare(schedule);
  for (const std::int64_t count : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 20})
    EXPECT_EQ(prepared(count, DataType::float32, simulator::Placement::out_of_place),
              closed_form.seconds(schedule, count, DataType::float32, ReduceOp::sum, 0, simulator::Placement::out_of_place));

  const simulator::Predictor flow_level =
      simulator::make_model("flow-level", topology, gamma_seconds_per_byte, 1 << 16, true);
  ASSERT_TRUE(flow_level.flows);
  EXPECT_FALSE(flow_level.prepare);
  const FlowPrediction predicted = flow_level.flows(schedule, 1 << 20, DataType::float32, simulator::Placement::out_of_place);
  EXPECT_EQ(predicted.prediction.seconds, flow_level.seconds(schedule, 1 << 20, DataType::float32, ReduceOp::sum, 0,
                                                              simulator::Placement::out_of_place));
  EXPECT_FALSE(predicted.loads.empty());
  EXPECT_FALSE(predicted.trace.empty());
  EXPECT_TRUE(simulator::make_model("flow-level", topology, gamma_seconds_per_byte)
                  .flows(schedule, 1 << 20, DataType::float32, simulator::Placement::out_of_place)
                  .trace.empty());
}

}  // namespace
}  // namespace ringlab
