// Latency and seconds per byte of the route between two ranks, cached for the simulator.
//
// A transfer of b bytes from rank s to rank d costs latency + b * seconds_per_byte, where
// latency is the summed latency of the route's links (alpha per hop) and seconds_per_byte is
// 1 / the route's bottleneck bandwidth (links and limited switches). Entries are cached in rows
// by rank offset (d - s) mod N, so a circulant schedule, whose peers sit at a few fixed offsets,
// fills a few rows of N entries. Rows are kept up to a memory budget; past it costs are computed
// from the Router on every call (correct, slower).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "routing.hpp"
#include "topology.hpp"

namespace ringlab::simulator {

struct RouteCost {
  double latency_seconds = 0;
  double seconds_per_byte = 0;  // 0 when the route has no link (a rank to itself)
};

// Keeps a reference to the topology, which must outlive it. Not thread-safe.
class RouteCosts {
 public:
  explicit RouteCosts(const Topology& topology, std::size_t cache_budget_bytes = std::size_t{256} << 20);

  // Ranks are endpoint indices; throws std::out_of_range for a rank the topology lacks.
  RouteCost between(int source_rank, int destination_rank) {
    if (source_rank >= 0 && source_rank < nranks_ && destination_rank >= 0 && destination_rank < nranks_) {
      const int offset = destination_rank - source_rank;
      const auto& row = rows_by_offset_[static_cast<std::size_t>(offset < 0 ? offset + nranks_ : offset)];
      if (!row.empty() && row[static_cast<std::size_t>(source_rank)].latency_seconds >= 0)
        return row[static_cast<std::size_t>(source_rank)];
    }
    return look_up(source_rank, destination_rank);
  }

  // When every rank r reaches rank (r + offset) mod N at the same cost (a symmetric network for
  // that offset, e.g. any offset of switch:N or ring:N), that cost; otherwise nothing. Looks up
  // all N routes of the offset once (cached like between()); the answer is kept per offset.
  std::optional<RouteCost> uniform_cost(int offset);

  const Topology& topology() const { return router_.topology(); }

 private:
  RouteCost look_up(int source_rank, int destination_rank);  // fills the cache
  RouteCost compute(int source_rank, int destination_rank);

  Router router_;
  int nranks_;
  std::size_t max_rows_;
  std::size_t cached_rows_ = 0;
  // rows_by_offset_[(d - s) mod N][s]; an empty row is not cached, a negative latency not yet known.
  std::vector<std::vector<RouteCost>> rows_by_offset_;
  enum class Uniformity : unsigned char { unknown, uniform, varies };
  std::vector<Uniformity> uniformity_by_offset_;  // allocated on the first uniform_cost call
};

}  // namespace ringlab::simulator
