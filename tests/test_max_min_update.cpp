// The local max-min solve (simulator/max_min_update.hpp): through random starts and ends its rates
// are a full solve's, whether it solved locally or declined; and the flow-level model predicts the
// same with it as with every changed group solved whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/max_min.hpp"
#include "simulator/max_min_update.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

using simulator::MaxMinUpdate;

// Flows on resources as a caller keeps them, with a full solve of every active flow.
struct SharedNetwork {
  std::vector<double> capacities;
  std::vector<std::vector<std::int32_t>> routes;  // by flow
  std::vector<double> rates;                      // by flow
  std::vector<unsigned char> active;              // by flow
  std::vector<std::vector<int>> flows_on;         // by resource
  simulator::SharedFlows shared;

  explicit SharedNetwork(std::vector<double> capacity) : capacities(std::move(capacity)), flows_on(capacities.size()) {
    shared.route = [this](int flow) { return std::span<const std::int32_t>(routes[static_cast<std::size_t>(flow)]); };
    shared.rate = [this](int flow) { return rates[static_cast<std::size_t>(flow)]; };
    shared.capacities = capacities;
    shared.flows_on = [this](std::int32_t r) { return std::span<const int>(flows_on[static_cast<std::size_t>(r)]); };
  }

  // Every active flow solved whole: its rate, and into the update its bottleneck and the loads.
  std::vector<double> full_solve(MaxMinUpdate* record) const {
    simulator::SharingProblem problem;
    problem.capacities = capacities;
    std::vector<int> flows;
    for (std::size_t flow = 0; flow < routes.size(); ++flow)
      if (active[flow]) {
        problem.add_flow(routes[flow]);
        flows.push_back(static_cast<int>(flow));
      }
    simulator::SharingWorkspace workspace;
    std::vector<double> solved;
    simulator::max_min_rates(problem, workspace, solved);
    std::vector<double> by_flow(routes.size(), 0.0);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      by_flow[static_cast<std::size_t>(flows[i])] = solved[i];
      if (record != nullptr) record->record_flow(flows[i], solved[i], workspace.bottleneck[i]);
    }
    if (record != nullptr)
      for (std::size_t r = 0; r < capacities.size(); ++r)
        record->record_load(static_cast<std::int32_t>(r), capacities[r] - workspace.capacity_left[r]);
    return by_flow;
  }
};

TEST(MaxMinUpdate, RatesAreAFullSolvesThroughRandomStartsAndEnds) {
  std::mt19937 random(33);
  std::uniform_real_distribution<double> capacity(1.0, 10.0);
  std::int64_t local = 0;
  std::int64_t declined = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int nresources = 4 + trial % 12;
    std::vector<double> capacities;
    for (int r = 0; r < nresources; ++r) capacities.push_back(trial % 2 == 0 ? capacity(random) : 10.0);  // ties too
    SharedNetwork network(capacities);
    MaxMinUpdate update(capacities.size());
    std::vector<std::int32_t> dirty;
    for (int batch = 0; batch < 60; ++batch) {
      dirty.clear();
      const int changes = 1 + static_cast<int>(random() % 3);
      for (int change = 0; change < changes; ++change) {
        std::vector<int> live;
        for (std::size_t flow = 0; flow < network.active.size(); ++flow)
          if (network.active[flow]) live.push_back(static_cast<int>(flow));
        if (!live.empty() && random() % 3 == 0) {  // one ends
          const int flow = live[random() % live.size()];
          const auto f = static_cast<std::size_t>(flow);
          network.active[f] = 0;
          for (std::int32_t r : network.routes[f]) {
            auto& on = network.flows_on[static_cast<std::size_t>(r)];
            on.erase(std::find(on.begin(), on.end(), flow));
            dirty.push_back(r);
          }
          update.remove_flow(flow, network.routes[f], network.rates[f], network.shared);
          continue;
        }
        std::vector<std::int32_t> route;  // one starts, on 1 to 6 distinct resources
        const int hops = 1 + static_cast<int>(random() % static_cast<unsigned>(2 + trial % 5));
        for (int hop = 0; hop < hops; ++hop) route.push_back(static_cast<std::int32_t>(random() % capacities.size()));
        std::sort(route.begin(), route.end());
        route.erase(std::unique(route.begin(), route.end()), route.end());
        const int flow = static_cast<int>(network.routes.size());
        network.routes.push_back(route);
        network.rates.push_back(0.0);
        network.active.push_back(1);
        for (std::int32_t r : route) {
          network.flows_on[static_cast<std::size_t>(r)].push_back(flow);
          dirty.push_back(r);
        }
        update.add_flow(flow, route);
      }
      std::vector<int> flows;
      std::vector<double> rates;
      if (update.solve(dirty, network.shared, flows, rates)) {
        for (std::size_t i = 0; i < flows.size(); ++i) network.rates[static_cast<std::size_t>(flows[i])] = rates[i];
      } else {
        network.rates = network.full_solve(&update);  // the caller's fallback
      }
      const std::vector<double> expected = network.full_solve(nullptr);
      for (std::size_t flow = 0; flow < expected.size(); ++flow) {
        if (network.active[flow]) {
          ASSERT_NEAR(network.rates[flow], expected[flow], 1e-9 * expected[flow])
              << "trial " << trial << " batch " << batch << " flow " << flow;
        }
      }
    }
    local += update.local_solves();
    declined += update.declined();
  }
  EXPECT_GT(local, 0);  // both sides of its condition were taken
  EXPECT_GT(declined, 0);
}

// The shortcut for flows alone on their resources gives the solve's bits: two updates, with and
// without it, fed the same random starts and ends on many resources (so flows are often alone).
TEST(MaxMinUpdate, FlowsAloneAreRatedAsInTheSolve) {
  std::mt19937 random(34);
  std::uniform_real_distribution<double> capacity(1.0, 10.0);
  std::vector<double> capacities;
  for (int r = 0; r < 24; ++r) capacities.push_back(r % 3 == 0 ? 10.0 : capacity(random));
  SharedNetwork with(capacities);
  SharedNetwork without(capacities);
  MaxMinUpdate shortcut(capacities.size());
  MaxMinUpdate solved(capacities.size(), false);
  std::vector<std::int32_t> dirty;
  std::vector<int> flows;
  std::vector<double> rates;
  int shared_batches = 0;  // batches that ended with flows sharing a resource
  for (int batch = 0; batch < 400; ++batch) {
    dirty.clear();
    std::vector<int> live;
    for (std::size_t flow = 0; flow < with.active.size(); ++flow)
      if (with.active[flow]) live.push_back(static_cast<int>(flow));
    if (live.size() > 4 || (!live.empty() && random() % 2 == 0)) {  // one ends
      const int flow = live[random() % live.size()];
      for (SharedNetwork* network : {&with, &without}) {
        network->active[static_cast<std::size_t>(flow)] = 0;
        for (std::int32_t r : network->routes[static_cast<std::size_t>(flow)]) {
          auto& on = network->flows_on[static_cast<std::size_t>(r)];
          on.erase(std::find(on.begin(), on.end(), flow));
        }
      }
      dirty = with.routes[static_cast<std::size_t>(flow)];
      shortcut.remove_flow(flow, dirty, with.rates[static_cast<std::size_t>(flow)], with.shared);
      solved.remove_flow(flow, dirty, without.rates[static_cast<std::size_t>(flow)], without.shared);
    } else {  // one starts, on 1 to 3 distinct resources
      std::vector<std::int32_t> route;
      for (int hop = 0; hop < 1 + static_cast<int>(random() % 3); ++hop)
        route.push_back(static_cast<std::int32_t>(random() % capacities.size()));
      std::sort(route.begin(), route.end());
      route.erase(std::unique(route.begin(), route.end()), route.end());
      const int flow = static_cast<int>(with.routes.size());
      for (SharedNetwork* network : {&with, &without}) {
        network->routes.push_back(route);
        network->rates.push_back(0.0);
        network->active.push_back(1);
        for (std::int32_t r : route) network->flows_on[static_cast<std::size_t>(r)].push_back(flow);
      }
      dirty = route;
      shortcut.add_flow(flow, route);
      solved.add_flow(flow, route);
    }
    for (auto [update, network] : {std::pair{&shortcut, &with}, std::pair{&solved, &without}}) {
      if (update->solve(dirty, network->shared, flows, rates)) {
        for (std::size_t i = 0; i < flows.size(); ++i) network->rates[static_cast<std::size_t>(flows[i])] = rates[i];
      } else {
        network->rates = network->full_solve(update);
      }
    }
    ASSERT_EQ(with.rates, without.rates) << "batch " << batch;
    shared_batches += std::any_of(with.flows_on.begin(), with.flows_on.end(), [](const auto& on) { return on.size() > 1; });
  }
  EXPECT_GT(shortcut.alone_flows(), 0);  // both sides of its condition were taken
  EXPECT_GT(shared_batches, 100);
  EXPECT_EQ(solved.alone_flows(), 0);
}

TEST(MaxMinUpdate, FlowLevelPredictsAsWithWholeGroupSolves) {
  struct Case {
    const char* preset;
    const char* algorithm;
    std::int64_t segment_bytes;
  };
  const Case cases[] = {{"ring:64", "interval_paired", 1 << 16}, {"ring:96", "halving_doubling", 1 << 20},
                        {"torus2d:8x8", "interval_paired", 0},    {"torus2d:8x16", "bine", 4096},
                        {"nvswitch:8,nodes:4", "swing", 1 << 20}, {"dragonfly:8,routers=2,ranks=2,global=4", "recursive_doubling", 4096}};
  std::int64_t local = 0;
  std::int64_t declined = 0;
  for (const Case& row : cases) {
    const Topology topology = make_preset_topology(row.preset);
    const Schedule schedule = make_schedule(row.algorithm, Collective::allreduce, topology.num_endpoints());
    simulator::FlowLevelOptions options;
    options.segment_bytes = row.segment_bytes;
    options.use_rank_orbits = false;
    const simulator::FlowPrediction fast =
        simulator::FlowLevelModel(topology, simulator::default_gamma_seconds_per_byte, options)
            .predict(schedule, std::int64_t{1} << 20, DataType::float32);
    options.local_max_min = false;
    const simulator::FlowPrediction whole =
        simulator::FlowLevelModel(topology, simulator::default_gamma_seconds_per_byte, options)
            .predict(schedule, std::int64_t{1} << 20, DataType::float32);
    EXPECT_NEAR(fast.prediction.seconds, whole.prediction.seconds, 1e-9 * whole.prediction.seconds)
        << row.algorithm << " on " << row.preset;
    EXPECT_EQ(whole.local_solves + whole.declined_local, 0);
    local += fast.local_solves;
    declined += fast.declined_local;
  }
  EXPECT_GT(local, 0);
  EXPECT_GT(declined, 0);
}

}  // namespace
}  // namespace ringlab
