#include "simulator/max_min.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace ringlab::simulator {

void SharingProblem::add_flow(std::span<const std::int32_t> crossed) {
  resources.insert(resources.end(), crossed.begin(), crossed.end());
  flow_start.push_back(static_cast<std::int32_t>(resources.size()));
}

void SharingProblem::add_flow(std::span<const std::int32_t> crossed, std::span<const double> crossing_weights) {
  weights.insert(weights.end(), crossing_weights.begin(), crossing_weights.end());
  add_flow(crossed);
}

void SharingProblem::clear() {
  capacities.clear();
  flow_start.assign(1, 0);
  resources.clear();
  weights.clear();
  resource_start.clear();
  resource_flows.clear();
}

void max_min_rates(const SharingProblem& problem, SharingWorkspace& work, std::vector<double>& rates) {
  const int nflows = problem.num_flows();
  const auto nresources = problem.capacities.size();
  rates.assign(static_cast<std::size_t>(nflows), std::numeric_limits<double>::infinity());
  work.capacity_left.assign(problem.capacities.begin(), problem.capacities.end());
  const bool weighted = !problem.weights.empty();
  const auto weight_of = [&](std::int32_t crossing) {
    return weighted ? problem.weights[static_cast<std::size_t>(crossing)] : 1.0;
  };
  work.unfrozen.assign(nresources, 0.0);
  for (std::size_t i = 0; i < problem.resources.size(); ++i)
    work.unfrozen[static_cast<std::size_t>(problem.resources[i])] += weight_of(static_cast<std::int32_t>(i));
  const bool given = !problem.resource_start.empty();
  if (!given) {  // counting sort by resource
    work.resource_start.assign(nresources + 1, 0);
    for (std::int32_t resource : problem.resources) ++work.resource_start[static_cast<std::size_t>(resource) + 1];
    for (std::size_t r = 0; r < nresources; ++r) work.resource_start[r + 1] += work.resource_start[r];
    work.resource_flows.resize(problem.resources.size());
    work.fill.assign(work.resource_start.begin(), work.resource_start.end() - 1);
    for (int f = 0; f < nflows; ++f) {
      const auto flow = static_cast<std::size_t>(f);
      for (std::int32_t i = problem.flow_start[flow]; i < problem.flow_start[flow + 1]; ++i) {
        const auto resource = static_cast<std::size_t>(problem.resources[static_cast<std::size_t>(i)]);
        work.resource_flows[static_cast<std::size_t>(work.fill[resource]++)] = f;
      }
    }
  }
  const std::vector<std::int32_t>& resource_start = given ? problem.resource_start : work.resource_start;
  const std::vector<std::int32_t>& resource_flows = given ? problem.resource_flows : work.resource_flows;
  work.frozen.assign(static_cast<std::size_t>(nflows), 0);
  work.bottleneck.assign(static_cast<std::size_t>(nflows), -1);
  // A min-heap of (fair share, resource), one entry per resource with unfrozen flows. Freezing a
  // flow at the smallest share never lowers another resource's share (it takes the share from its
  // capacity left and one flow from its count), so an entry's key is at most its resource's share:
  // a popped entry whose share has since grown goes back in at its share instead of being pushed
  // again at every change, and the heap stays at one entry per resource.
  auto share_of = [&](std::size_t r) { return std::max(0.0, work.capacity_left[r]) / work.unfrozen[r]; };
  auto later = std::greater<>{};
  work.heap.clear();
  for (std::size_t r = 0; r < nresources; ++r)
    if (work.unfrozen[r] > 0) work.heap.emplace_back(share_of(r), static_cast<std::int32_t>(r));
  std::make_heap(work.heap.begin(), work.heap.end(), later);
  while (!work.heap.empty()) {
    std::pop_heap(work.heap.begin(), work.heap.end(), later);
    const auto [share, bottleneck] = work.heap.back();
    const auto b = static_cast<std::size_t>(bottleneck);
    if (work.unfrozen[b] <= 0) {  // every flow on it froze elsewhere
      work.heap.pop_back();
      continue;
    }
    if (const double now_share = share_of(b); share != now_share) {  // grew since: back in at its share
      work.heap.back().first = now_share;
      std::push_heap(work.heap.begin(), work.heap.end(), later);
      continue;
    }
    work.heap.pop_back();
    for (std::int32_t i = resource_start[b]; i < resource_start[b + 1]; ++i) {
      const auto f = static_cast<std::size_t>(resource_flows[static_cast<std::size_t>(i)]);
      if (work.frozen[f]) continue;
      work.frozen[f] = 1;
      rates[f] = share;
      work.bottleneck[f] = bottleneck;
      for (std::int32_t j = problem.flow_start[f]; j < problem.flow_start[f + 1]; ++j) {
        const auto r = static_cast<std::size_t>(problem.resources[static_cast<std::size_t>(j)]);
        const double weight = weight_of(j);
        work.capacity_left[r] -= weighted ? share * weight : share;
        work.unfrozen[r] -= weight;
      }
    }
  }
}

}  // namespace ringlab::simulator
