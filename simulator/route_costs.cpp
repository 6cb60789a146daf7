#include "simulator/route_costs.hpp"

#include <algorithm>
#include <stdexcept>

namespace ringlab::simulator {
namespace {

// 1 / bandwidth, 0 for an unlimited one (a route with no link).
double seconds_per_byte_of(double bandwidth) { return bandwidth < unlimited_capacity ? 1.0 / bandwidth : 0.0; }

}  // namespace

RouteCosts::RouteCosts(const Topology& topology, std::size_t cache_budget_bytes)
    : router_(topology),
      nranks_(topology.num_endpoints()),
      max_rows_(cache_budget_bytes / (std::max<std::size_t>(1, static_cast<std::size_t>(nranks_)) * sizeof(RouteCost))),
      rows_by_offset_(static_cast<std::size_t>(nranks_)),
      uplinks_(uplinks_of(topology, switches_)),
      switch_rows_(switches_.size()) {}

std::vector<RouteCosts::Uplink> RouteCosts::uplinks_of(const Topology& topology, std::vector<NodeId>& switches) {
  std::vector<Uplink> uplinks(static_cast<std::size_t>(topology.num_endpoints()));
  if (topology.endpoints_forward()) return uplinks;  // the Router routes such ranks by their own tree
  std::vector<int> links_out(static_cast<std::size_t>(topology.num_nodes()), 0);
  std::vector<DirectedLinkId> last_out(links_out.size(), -1);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const auto from = static_cast<std::size_t>(topology.directed_link(id).from);
    ++links_out[from];
    last_out[from] = id;
  }
  std::vector<int> row_of_switch(links_out.size(), -1);
  for (int rank = 0; rank < topology.num_endpoints(); ++rank) {
    const auto node = static_cast<std::size_t>(topology.endpoint_node(rank));
    if (links_out[node] != 1) continue;
    const DirectedLink& link = topology.directed_link(last_out[node]);
    const Node& hub = topology.node(link.to);
    if (hub.kind != NodeKind::switch_node) continue;
    int& row = row_of_switch[static_cast<std::size_t>(link.to)];
    if (row < 0) {
      row = static_cast<int>(switches.size());
      switches.push_back(link.to);
    }
    // The switch is interior to every route that leaves by this link for another rank.
    const double bandwidth = std::min(link.bandwidth, hub.capacity);
    uplinks[static_cast<std::size_t>(rank)] = {row, {link.latency, seconds_per_byte_of(bandwidth)}};
  }
  return uplinks;
}

RouteCost RouteCosts::compute(int source_rank, int destination_rank) {
  const Route route = router_.route(source_rank, destination_rank);
  return {route.latency, seconds_per_byte_of(route.bottleneck_bandwidth)};
}

RouteCost RouteCosts::look_up(int source_rank, int destination_rank) {
  if (source_rank < 0 || source_rank >= nranks_ || destination_rank < 0 || destination_rank >= nranks_)
    return compute(source_rank, destination_rank);  // the Router names the bad rank
  const auto source = static_cast<std::size_t>(source_rank);
  const Uplink& uplink = uplinks_[source];
  if (uplink.row >= 0 && source_rank != destination_rank) {
    std::vector<SwitchRoute>& row = switch_rows_[static_cast<std::size_t>(uplink.row)];
    const auto destination = static_cast<std::size_t>(destination_rank);
    if (row.empty() && cached_rows_ < max_rows_) {
      row.assign(static_cast<std::size_t>(nranks_), SwitchRoute{-1.0, 0.0});
      ++cached_rows_;
    }
    SwitchRoute rest{-1.0, 0.0};
    if (!row.empty()) rest = row[destination];
    if (rest.latency_seconds < 0) {
      const Route route = router_.route_between_nodes(switches_[static_cast<std::size_t>(uplink.row)],
                                                      router_.topology().endpoint_node(destination_rank));
      rest = {route.latency, seconds_per_byte_of(route.bottleneck_bandwidth)};
      if (!row.empty()) row[destination] = rest;
    }
    return through(uplink, rest);
  }
  const auto offset = static_cast<std::size_t>((destination_rank - source_rank + nranks_) % nranks_);
  std::vector<RouteCost>& row = rows_by_offset_[offset];
  if (row.empty()) {
    if (cached_rows_ >= max_rows_) return compute(source_rank, destination_rank);
    row.assign(static_cast<std::size_t>(nranks_), RouteCost{-1.0, 0.0});
    ++cached_rows_;
  }
  if (row[source].latency_seconds < 0) row[source] = compute(source_rank, destination_rank);
  return row[source];
}

std::optional<RouteCost> RouteCosts::uniform_cost(int offset) {
  offset %= nranks_;
  if (uniformity_by_offset_.empty()) uniformity_by_offset_.assign(static_cast<std::size_t>(nranks_), Uniformity::unknown);
  Uniformity& known = uniformity_by_offset_[static_cast<std::size_t>(offset)];
  const RouteCost first = between(0, offset);
  if (known == Uniformity::unknown) {
    known = Uniformity::uniform;
    for (int source = 1; source < nranks_ && known == Uniformity::uniform; ++source) {
      const RouteCost cost = between(source, (source + offset) % nranks_);
      if (cost.latency_seconds != first.latency_seconds || cost.seconds_per_byte != first.seconds_per_byte)
        known = Uniformity::varies;
    }
  }
  if (known == Uniformity::varies) return std::nullopt;
  return first;
}

bool RouteCosts::every_pair_alike() {
  if (every_pair_ == Uniformity::unknown) {
    every_pair_ = Uniformity::varies;
    const auto same = [](const RouteCost& a, const RouteCost& b) {
      return a.latency_seconds == b.latency_seconds && a.seconds_per_byte == b.seconds_per_byte;
    };
    // With equal uplinks, between(s, d) is the uplink's cost plus the switch's to d: a function
    // of d alone, so checking every d from one source (and d = 0 from rank 1) covers every pair.
    const auto alike_uplink = [&](const Uplink& uplink) {
      return uplink.row >= 0 && uplink.row == uplinks_.front().row && same(uplink.link, uplinks_.front().link);
    };
    if (nranks_ >= 2 && std::all_of(uplinks_.begin(), uplinks_.end(), alike_uplink)) {
      const RouteCost reference = between(1, 0);
      bool alike = true;
      for (int destination = 1; destination < nranks_ && alike; ++destination) alike = same(between(0, destination), reference);
      if (alike) every_pair_ = Uniformity::uniform;
    }
  }
  return every_pair_ == Uniformity::uniform;
}

}  // namespace ringlab::simulator
