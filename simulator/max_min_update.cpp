#include "simulator/max_min_update.hpp"

#include <algorithm>
#include <limits>

namespace ringlab::simulator {

namespace {
constexpr double tolerance = 1e-9;  // relative, for "saturated" and "no faster"
constexpr int max_rounds = 6;
}  // namespace

MaxMinUpdate::MaxMinUpdate(std::size_t num_resources, bool alone_shortcut)
    : alone_shortcut_(alone_shortcut),
      load_(num_resources, 0.0),
      level_(num_resources, 0.0),
      bottlenecked_(num_resources),
      resource_round_(num_resources, 0),
      resource_local_(num_resources, -1) {}

void MaxMinUpdate::grow(int flow) {
  const auto needed = static_cast<std::size_t>(flow) + 1;
  if (bottleneck_.size() >= needed) return;
  bottleneck_.resize(needed, -1);
  listed_at_.resize(needed, -1);
  member_.resize(needed, 0);
  named_.resize(needed, 0);
  active_.resize(needed, 0);
}

void MaxMinUpdate::add_flow(int flow, std::span<const std::int32_t> route) {
  grow(flow);
  unlist(flow);
  active_[static_cast<std::size_t>(flow)] = 1;
  unrated_.push_back(flow);
  crossings_ += static_cast<std::int64_t>(route.size());
}

void MaxMinUpdate::remove_flow(int flow, std::span<const std::int32_t> route, double rate, const SharedFlows& shared) {
  for (std::int32_t resource : route) {
    const auto r = static_cast<std::size_t>(resource);
    load_[r] = shared.flows_on(resource).empty() ? 0.0 : load_[r] - rate;  // an empty resource sheds its rounding
  }
  unlist(flow);
  active_[static_cast<std::size_t>(flow)] = 0;  // ended before it was rated, if so
  crossings_ -= static_cast<std::int64_t>(route.size());
}

void MaxMinUpdate::unlist(int flow) {
  std::int32_t& resource = bottleneck_[static_cast<std::size_t>(flow)];
  if (resource < 0) return;
  std::vector<int>& list = bottlenecked_[static_cast<std::size_t>(resource)];
  const auto at = static_cast<std::size_t>(listed_at_[static_cast<std::size_t>(flow)]);
  list[at] = list.back();
  list.pop_back();
  if (at < list.size()) listed_at_[static_cast<std::size_t>(list[at])] = static_cast<std::int32_t>(at);
  resource = -1;
}

void MaxMinUpdate::set_bottleneck(int flow, std::int32_t resource, double rate) {
  unlist(flow);
  std::vector<int>& list = bottlenecked_[static_cast<std::size_t>(resource)];
  bottleneck_[static_cast<std::size_t>(flow)] = resource;
  listed_at_[static_cast<std::size_t>(flow)] = static_cast<std::int32_t>(list.size());
  list.push_back(flow);
  level_[static_cast<std::size_t>(resource)] = rate;
}

void MaxMinUpdate::record_flow(int flow, double rate, std::int32_t bottleneck) {
  grow(flow);
  set_bottleneck(flow, bottleneck, rate);
}

void MaxMinUpdate::add_to_set(int flow, const SharedFlows& shared) {
  std::uint32_t& member = member_[static_cast<std::size_t>(flow)];
  if (member == epoch_) return;
  member = epoch_;
  set_.push_back(flow);
  set_crossings_ += static_cast<std::int64_t>(shared.route(flow).size());
}

bool MaxMinUpdate::solve(std::span<const std::int32_t> dirty, const SharedFlows& shared, std::vector<int>& flows,
                         std::vector<double>& rates) {
  ++epoch_;
  set_.clear();
  set_crossings_ = 0;
  for (int flow : unrated_)
    if (active_[static_cast<std::size_t>(flow)] != 0 && bottleneck_[static_cast<std::size_t>(flow)] < 0)
      add_to_set(flow, shared);
  unrated_.clear();
  for (std::int32_t resource : dirty)
    for (int flow : bottlenecked_[static_cast<std::size_t>(resource)]) add_to_set(flow, shared);
  for (int round = 0; round < max_rounds && 2 * set_crossings_ <= crossings_; ++round) {
    if (set_.empty()) {
      flows.clear();
      rates.clear();
      ++local_solves_;
      return true;
    }
    if (solve_set(shared, rates)) {
      for (std::size_t local = 0; local < local_resources_.size(); ++local) {
        const std::int32_t resource = local_resources_[local];
        load_[static_cast<std::size_t>(resource)] = shared.capacity(resource) - workspace_.capacity_left[local];
      }
      for (const auto& [resource, load] : alone_loads_) load_[static_cast<std::size_t>(resource)] = load;
      for (std::size_t i = 0; i < set_.size(); ++i) set_bottleneck(set_[i], set_bottlenecks_[i], rates[i]);
      flows = set_;
      ++local_solves_;
      return true;
    }
    for (int flow : named_flows_) add_to_set(flow, shared);
  }
  ++declined_;
  return false;
}

// A flow of the set alone on every resource it crosses: progressive filling freezes it at the
// least of what the others leave there, the first such resource in route order being its
// bottleneck (max_min_rates breaks ties by local number, given in route order), with every
// resource's load and capacity left computed as max_min_rates computes them, so bit for bit.
double MaxMinUpdate::rate_alone(std::span<const std::int32_t> route, double old_rate, const SharedFlows& shared,
                                std::int32_t& bottleneck) {
  const std::size_t first = alone_loads_.size();
  double rate = std::numeric_limits<double>::infinity();
  for (std::int32_t resource : route) {
    const double left = shared.capacity(resource) - load_[static_cast<std::size_t>(resource)] + old_rate;
    alone_loads_.emplace_back(resource, left);
    if (const double share = std::max(0.0, left); share < rate) {
      rate = share;
      bottleneck = resource;
    }
  }
  for (std::size_t i = first; i < alone_loads_.size(); ++i) {
    auto& [resource, load] = alone_loads_[i];
    load = shared.capacity(resource) - (load - rate);
  }
  return rate;
}

bool MaxMinUpdate::solve_set(const SharedFlows& shared, std::vector<double>& rates) {
  ++round_;
  problem_.clear();
  local_resources_.clear();
  set_old_.clear();
  alone_loads_.clear();
  solved_.clear();
  rates.assign(set_.size(), 0.0);
  set_bottlenecks_.assign(set_.size(), -1);
  const auto alone = [&](std::span<const std::int32_t> route) {
    return std::all_of(route.begin(), route.end(),
                       [&](std::int32_t resource) { return shared.flows_on(resource).size() == 1; });
  };
  for (std::size_t i = 0; i < set_.size(); ++i) {
    const int flow = set_[i];
    const double old_rate = shared.rate(flow);
    const std::span<const std::int32_t> route = shared.route(flow);
    if (alone_shortcut_ && alone(route)) {
      rates[i] = rate_alone(route, old_rate, shared, set_bottlenecks_[i]);
      ++alone_flows_;
      continue;
    }
    solved_.push_back(i);
    for (std::int32_t resource : route) {
      const auto r = static_cast<std::size_t>(resource);
      if (resource_round_[r] != round_) {
        resource_round_[r] = round_;
        resource_local_[r] = static_cast<std::int32_t>(local_resources_.size());
        local_resources_.push_back(resource);
        set_old_.push_back(0.0);
      }
      set_old_[static_cast<std::size_t>(resource_local_[r])] += old_rate;
      problem_.resources.push_back(resource_local_[r]);
    }
    problem_.flow_start.push_back(static_cast<std::int32_t>(problem_.resources.size()));
  }
  for (std::size_t local = 0; local < local_resources_.size(); ++local) {  // what the others leave
    const std::int32_t resource = local_resources_[local];
    problem_.capacities.push_back(shared.capacity(resource) - load_[static_cast<std::size_t>(resource)] + set_old_[local]);
  }
  if (solved_.empty()) return true;  // every flow alone: no flow outside the set shares its resources
  max_min_rates(problem_, workspace_, solved_rates_);
  for (std::size_t k = 0; k < solved_.size(); ++k) {
    rates[solved_[k]] = solved_rates_[k];
    set_bottlenecks_[solved_[k]] = local_resources_[static_cast<std::size_t>(workspace_.bottleneck[k])];
  }

  named_flows_.clear();
  const auto name = [&](int flow) {
    std::uint32_t& named = named_[static_cast<std::size_t>(flow)];
    if (member_[static_cast<std::size_t>(flow)] == epoch_ || named == round_) return;
    named = round_;
    named_flows_.push_back(flow);
  };
  // (a) on each bottleneck of the set, no flow outside it faster than the share (a flow alone
  // shares its resources with none: the checks read the solved flows only).
  checked_.assign(local_resources_.size(), 0);
  for (std::size_t k = 0; k < solved_.size(); ++k) {
    const auto local = static_cast<std::size_t>(workspace_.bottleneck[k]);
    if (checked_[local] != 0) continue;
    checked_[local] = 1;
    const double limit = solved_rates_[k] * (1 + tolerance);
    for (int flow : shared.flows_on(local_resources_[local]))
      if (member_[static_cast<std::size_t>(flow)] != epoch_ && shared.rate(flow) > limit) name(flow);
  }
  // (b) where flows outside the set have their bottleneck, still saturated and none faster.
  set_max_.assign(local_resources_.size(), 0.0);
  for (std::size_t k = 0; k < solved_.size(); ++k)
    for (std::int32_t j = problem_.flow_start[k]; j < problem_.flow_start[k + 1]; ++j) {
      double& fastest = set_max_[static_cast<std::size_t>(problem_.resources[static_cast<std::size_t>(j)])];
      fastest = std::max(fastest, solved_rates_[k]);
    }
  for (std::size_t local = 0; local < local_resources_.size(); ++local) {
    const auto resource = static_cast<std::size_t>(local_resources_[local]);
    const std::vector<int>& held = bottlenecked_[resource];
    if (held.empty()) continue;
    const bool saturated = workspace_.capacity_left[local] <= tolerance * shared.capacity(local_resources_[local]);
    if (saturated && set_max_[local] <= level_[resource] * (1 + tolerance)) continue;
    for (int flow : held) name(flow);
  }
  return named_flows_.empty();
}

}  // namespace ringlab::simulator
