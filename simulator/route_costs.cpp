#include "route_costs.hpp"

#include <algorithm>
#include <stdexcept>

namespace ringlab::simulator {

RouteCosts::RouteCosts(const Topology& topology, std::size_t cache_budget_bytes)
    : router_(topology),
      nranks_(topology.num_endpoints()),
      max_rows_(cache_budget_bytes / (std::max<std::size_t>(1, static_cast<std::size_t>(nranks_)) * sizeof(RouteCost))),
      rows_by_offset_(static_cast<std::size_t>(nranks_)) {}

RouteCost RouteCosts::compute(int source_rank, int destination_rank) {
  const Route route = router_.route(source_rank, destination_rank);
  const double per_byte = route.bottleneck_bandwidth < unlimited_capacity ? 1.0 / route.bottleneck_bandwidth : 0.0;
  return {route.latency, per_byte};
}

RouteCost RouteCosts::look_up(int source_rank, int destination_rank) {
  if (source_rank < 0 || source_rank >= nranks_ || destination_rank < 0 || destination_rank >= nranks_)
    return compute(source_rank, destination_rank);  // the Router names the bad rank
  const auto offset = static_cast<std::size_t>((destination_rank - source_rank + nranks_) % nranks_);
  const auto source = static_cast<std::size_t>(source_rank);
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

}  // namespace ringlab::simulator
