// Max-min fair rates kept up to date as flows start and end, re-solving only the flows a change
// can move (the flow-level model's local solve, issue 33). Kept: each resource's load (the rates
// on it) and level (the rate of the flows it froze); each flow's bottleneck (the resource that
// froze it, as max_min.hpp's workspace reports).
//
// Why a local solve gives the full solve's rates: a feasible allocation is max-min fair iff every
// flow has a bottleneck, a resource it crosses that is saturated and on which no flow is faster,
// and the max-min fair allocation is unique (Bertsekas and Gallager, Data Networks, 6.5). So:
//   1. A = the new flows and the flows whose bottleneck a flow entered or left (`dirty`);
//   2. A is solved alone by progressive filling on what the other flows, at their rates, leave of
//      each resource: nothing goes over capacity, and each flow of A gets a bottleneck b where
//      the solve saturated it and no flow of A is faster;
//   3. checks for what the solve of A does not see: (a) no flow outside A is faster than A's share
//      on each such b; (b) each resource A crosses on which flows outside A have their bottleneck
//      is still saturated, and no flow of A is faster there than their level. A resource A does
//      not cross keeps its flows and rates (a dirty one's bottlenecked flows are in A), so the
//      bottlenecks there still hold;
//   4. a failed check adds the flows it names to A (the faster ones in (a), the ones bottlenecked
//      there in (b)) and A is solved again, for a few rounds while A's crossings are at most half
//      the network's; past that solve declines and the caller solves the whole group (and records
//      it here).
// When the checks pass, every flow has a bottleneck: the rates are the full solve's, "saturated"
// and "no faster" read to a relative 1e-9 for rounding (tests: MaxMinUpdate.*).
// Shortcut: a flow of A that is the only flow on each resource it crosses (a ring's flows on a
// torus) is rated apart, at the least of what its resources leave, with no solve and no check:
// the same bits as solving it in A (MaxMinUpdate.FlowsAloneAreRatedAsInTheSolve).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "simulator/max_min.hpp"

namespace ringlab::simulator {

// What the update reads of the caller's flows, by the caller's flow index.
struct SharedFlows {
  std::function<std::span<const std::int32_t>(int)> route;  // the resources a flow crosses
  std::function<double(int)> rate;                          // its rate now (0 before its first solve)
  std::span<const double> capacities;                       // bytes/s, by resource

  double capacity(std::int32_t resource) const { return capacities[static_cast<std::size_t>(resource)]; }
  std::function<std::span<const int>(std::int32_t)> flows_on;  // the flows on a resource now
};

class MaxMinUpdate {
 public:
  // alone_shortcut false: flows alone on their resources are solved with the others (tests).
  explicit MaxMinUpdate(std::size_t num_resources, bool alone_shortcut = true);

  // A flow that crosses `route` (not empty) starts; it has no rate until a solve.
  void add_flow(int flow, std::span<const std::int32_t> route);
  // A flow ends, after the caller took it off flows_on: its rate leaves its resources' loads.
  void remove_flow(int flow, std::span<const std::int32_t> route, double rate, const SharedFlows& shared);
  // What a full solve of a group found: a flow's rate and bottleneck, a resource's load.
  void record_flow(int flow, double rate, std::int32_t bottleneck);
  void record_load(std::int32_t resource, double load) { load_[static_cast<std::size_t>(resource)] = load; }

  // New rates after flows started or ended on the `dirty` resources: true with `flows` and their
  // `rates` (every other flow keeps its rate), or false when the caller must solve the groups of
  // the dirty resources whole.
  bool solve(std::span<const std::int32_t> dirty, const SharedFlows& shared, std::vector<int>& flows,
             std::vector<double>& rates);

  std::int64_t local_solves() const { return local_solves_; }
  std::int64_t declined() const { return declined_; }
  std::int64_t alone_flows() const { return alone_flows_; }  // rated by the shortcut

 private:
  void grow(int flow);
  void add_to_set(int flow, const SharedFlows& shared);
  void set_bottleneck(int flow, std::int32_t resource, double rate);
  void unlist(int flow);
  // Solves the set on what the others leave; false when a check named flows to add.
  bool solve_set(const SharedFlows& shared, std::vector<double>& rates);
  // The rate of a flow alone on its route, its bottleneck, and its resources' loads into alone_loads_.
  double rate_alone(std::span<const std::int32_t> route, double old_rate, const SharedFlows& shared,
                    std::int32_t& bottleneck);

  bool alone_shortcut_ = true;
  std::vector<double> load_;                    // by resource
  std::vector<double> level_;                   // by resource: the rate of the flows it froze
  std::vector<std::vector<int>> bottlenecked_;  // by resource: the flows it froze
  std::vector<std::int32_t> bottleneck_;        // by flow; -1: none (new, or ended)
  std::vector<std::int32_t> listed_at_;         // by flow: its entry in bottlenecked_
  std::vector<std::uint32_t> member_;           // by flow: the last solve whose set held it
  std::vector<std::uint32_t> named_;            // by flow: the last round a check named it
  std::vector<unsigned char> active_;           // by flow: started and not ended
  std::vector<int> unrated_;                    // flows added since the last solve
  std::int64_t crossings_ = 0;                  // of every flow started and not ended

  std::uint32_t epoch_ = 0;  // solves
  std::uint32_t round_ = 0;  // rounds, over all solves
  std::vector<int> set_;
  std::int64_t set_crossings_ = 0;
  std::vector<int> named_flows_;
  std::vector<std::uint32_t> resource_round_;  // by resource: the last round that numbered it
  std::vector<std::int32_t> resource_local_;
  std::vector<std::int32_t> local_resources_;
  std::vector<double> set_old_;   // by local resource: the set's rates before the solve
  std::vector<double> set_max_;   // by local resource: the fastest of the set after it
  std::vector<std::uint32_t> checked_;  // by local resource: the round that scanned it for (a)
  std::vector<std::size_t> solved_;        // the set's flows in problem_, by their place in set_
  std::vector<double> solved_rates_;       // ... and their rates
  std::vector<std::int32_t> set_bottlenecks_;  // by place in set_, after a round
  std::vector<std::pair<std::int32_t, double>> alone_loads_;  // the loads of the flows alone, after a round
  SharingProblem problem_;
  SharingWorkspace workspace_;
  std::int64_t alone_flows_ = 0;
  std::int64_t local_solves_ = 0;
  std::int64_t declined_ = 0;
};

}  // namespace ringlab::simulator
