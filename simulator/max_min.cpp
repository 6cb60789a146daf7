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
}

void max_min_rates(const SharingProblem& problem, SharingWorkspace& work, std::vector<double>& rates) {
  const int nflows = problem.num_flows();
  const auto nresources = problem.capacities.size();
  rates.assign(static_cast<std::size_t>(nflows), std::numeric_limits<double>::infinity());
  // The flows of each resource, in compressed rows (counting sort by resource).
  work.capacity_left.assign(problem.capacities.begin(), problem.capacities.end());
  const bool weighted = !problem.weights.empty();
  const auto weight_of = [&](std::int32_t crossing) {
    return weighted ? problem.weights[static_cast<std::size_t>(crossing)] : 1.0;
  };
  work.resource_start.assign(nresources + 1, 0);
  for (std::int32_t resource : problem.resources) ++work.resource_start[static_cast<std::size_t>(resource) + 1];
  for (std::size_t r = 0; r < nresources; ++r) work.resource_start[r + 1] += work.resource_start[r];
  work.unfrozen.assign(nresources, 0.0);
  for (std::size_t i = 0; i < problem.resources.size(); ++i)
    work.unfrozen[static_cast<std::size_t>(problem.resources[i])] += weight_of(static_cast<std::int32_t>(i));
  work.resource_flows.resize(problem.resources.size());
  work.fill.assign(work.resource_start.begin(), work.resource_start.end() - 1);
  for (int f = 0; f < nflows; ++f) {
    const auto flow = static_cast<std::size_t>(f);
    for (std::int32_t i = problem.flow_start[flow]; i < problem.flow_start[flow + 1]; ++i) {
      const auto resource = static_cast<std::size_t>(problem.resources[static_cast<std::size_t>(i)]);
      work.resource_flows[static_cast<std::size_t>(work.fill[resource]++)] = f;
    }
  }
  work.frozen.assign(static_cast<std::size_t>(nflows), 0);
  work.touched_mark.assign(nresources, 0);
  work.touched.clear();
  // A min-heap of (fair share, resource); an entry is stale when the resource's share changed since.
  auto share_of = [&](std::size_t r) { return std::max(0.0, work.capacity_left[r]) / work.unfrozen[r]; };
  auto later = std::greater<>{};
  work.heap.clear();
  for (std::size_t r = 0; r < nresources; ++r)
    if (work.unfrozen[r] > 0) work.heap.emplace_back(share_of(r), static_cast<std::int32_t>(r));
  std::make_heap(work.heap.begin(), work.heap.end(), later);
  while (!work.heap.empty()) {
    std::pop_heap(work.heap.begin(), work.heap.end(), later);
    const auto [share, bottleneck] = work.heap.back();
    work.heap.pop_back();
    const auto b = static_cast<std::size_t>(bottleneck);
    if (work.unfrozen[b] <= 0 || share != share_of(b)) continue;  // stale
    for (std::int32_t i = work.resource_start[b]; i < work.resource_start[b + 1]; ++i) {
      const auto f = static_cast<std::size_t>(work.resource_flows[static_cast<std::size_t>(i)]);
      if (work.frozen[f]) continue;
      work.frozen[f] = 1;
      rates[f] = share;
      for (std::int32_t j = problem.flow_start[f]; j < problem.flow_start[f + 1]; ++j) {
        const auto r = static_cast<std::size_t>(problem.resources[static_cast<std::size_t>(j)]);
        const double weight = weight_of(j);
        work.capacity_left[r] -= weighted ? share * weight : share;
        work.unfrozen[r] -= weight;
        if (!work.touched_mark[r]) {
          work.touched_mark[r] = 1;
          work.touched.push_back(static_cast<std::int32_t>(r));
        }
      }
    }
    // One new entry per resource the round changed, at its share after the round (the entries a
    // push per frozen flow would add in between are stale by then, or equal to this one).
    for (const std::int32_t touched : work.touched) {
      const auto r = static_cast<std::size_t>(touched);
      work.touched_mark[r] = 0;
      if (work.unfrozen[r] > 0 && r != b) {
        work.heap.emplace_back(share_of(r), touched);
        std::push_heap(work.heap.begin(), work.heap.end(), later);
      }
    }
    work.touched.clear();
  }
}

}  // namespace ringlab::simulator
