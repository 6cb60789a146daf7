// Max-min fair rates of flows that share capacity-limited resources (links, limited switches),
// by progressive filling:
//   1. every flow starts unfrozen; each resource has its capacity left and its unfrozen flows;
//   2. the resource with the smallest fair share (capacity left / unfrozen flows on it) is the
//      next bottleneck: its unfrozen flows get that share as their rate and freeze;
//   3. their rates are taken from the capacity left of every other resource they cross (which
//      only raises those resources' shares: each keeps one heap entry, moved up when popped);
//   4. repeat until every flow is frozen.
// No flow can then go faster without slowing a flow that is no faster than it. O(F h + (R + M)
// log R) for R resources, F flows of h resources each and M entries moved up. Resources with no
// flow are ignored; a flow that crosses no resource gets an infinite rate.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ringlab::simulator {

// Flows in compressed rows: flow f crosses resources[flow_start[f] .. flow_start[f + 1]), indexes
// into capacities (bytes/s, > 0). flow_start has one more entry than there are flows. With
// weights (one per crossing, else all 1), a crossing of weight w stands for w flows of f's rate
// on that resource: a flow that represents an orbit of flows (flow_orbits.hpp).
struct SharingProblem {
  std::vector<double> capacities;
  std::vector<std::int32_t> flow_start{0};
  std::vector<std::int32_t> resources;
  std::vector<double> weights;  // empty: every crossing weighs 1
  // Optional, the same crossings by resource, as a caller that found them so may give them:
  // resource r's flows are resource_flows[resource_start[r] .. resource_start[r + 1]), a flow
  // once per crossing, in any order. Empty: max_min_rates sorts the crossings by resource.
  std::vector<std::int32_t> resource_start;
  std::vector<std::int32_t> resource_flows;

  int num_flows() const { return static_cast<int>(flow_start.size()) - 1; }
  void add_flow(std::span<const std::int32_t> crossed);
  void add_flow(std::span<const std::int32_t> crossed, std::span<const double> crossing_weights);
  void clear();
};

// Scratch space for max_min_rates, kept between calls so that repeated solves do not allocate.
struct SharingWorkspace {
  std::vector<double> capacity_left;
  std::vector<double> unfrozen;  // weights of the unfrozen flows on each resource
  std::vector<std::int32_t> resource_start;
  std::vector<std::int32_t> resource_flows;
  std::vector<std::int32_t> fill;
  std::vector<unsigned char> frozen;
  std::vector<std::pair<double, std::int32_t>> heap;
  // After a solve: the resource that froze each flow (its bottleneck; -1 for a flow crossing none),
  // and capacity_left[r] = capacity - the rates (x weights) on r.
  std::vector<std::int32_t> bottleneck;
};

// rates[f] for every flow of the problem (resized to num_flows()).
void max_min_rates(const SharingProblem& problem, SharingWorkspace& workspace, std::vector<double>& rates);

}  // namespace ringlab::simulator
