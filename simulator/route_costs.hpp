// Latency and seconds per byte of the route between two ranks, cached for the simulator.
//
// A transfer of b bytes from rank s to rank d costs latency + b * seconds_per_byte, where
// latency is the summed latency of the route's links (alpha per hop) and seconds_per_byte is
// 1 / the route's bottleneck bandwidth (links and limited switches). Entries are cached in rows
// by rank offset (d - s) mod N, so a circulant schedule, whose peers sit at a few fixed offsets,
// fills a few rows of N entries. Rows are kept up to a memory budget; past it costs are computed
// from the Router on every call (correct, slower).
// A rank whose endpoint relays nothing and has one link, to a switch (every rank of switch:N,
// pcie-tree, host-shm), reaches any other rank over that link and then the switch's route:
// such ranks share one row per switch, the costs from the switch to each rank, so a schedule
// whose peers sit at many different offsets (halving_doubling folded at N not a power of two)
// still costs one look-up per transfer. Its latency is the link's plus the row's, summed in that
// order (the Router sums link by link: equal up to rounding when the switch's route has two or
// more links).
// A topology whose declared rank symmetry holds (topology/symmetry.hpp: torus2d, ring, dragonfly,
// nvswitch with whole units) costs from rank s to rank d what its representative (s with every
// turning digit 0) costs to d turned back by s's digits, when the routes from that representative
// have one bottleneck whatever node ids decide (Router::costs_from): one row of N costs per
// representative, from one shortest-path search, instead of a row per offset and a tree per rank.
// A representative whose routes could differ in bottleneck, and any topology whose symmetry does
// not hold, are priced as above.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "topology/routing.hpp"
#include "topology/topology.hpp"

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
  // Always inlined: the closed form's walks call it once per op, millions of times.
  [[gnu::always_inline]] RouteCost between(int source_rank, int destination_rank) {
    if (source_rank >= 0 && source_rank < nranks_ && destination_rank >= 0 && destination_rank < nranks_) {
      if (symmetry_)
        if (const RouteCost* cost = symmetric_cost(source_rank, destination_rank)) return *cost;
      const Uplink& uplink = uplinks_[static_cast<std::size_t>(source_rank)];
      if (uplink.row >= 0 && source_rank != destination_rank) {
        const auto& row = switch_rows_[static_cast<std::size_t>(uplink.row)];
        if (!row.empty() && row[static_cast<std::size_t>(destination_rank)].latency_seconds >= 0)
          return through(uplink, row[static_cast<std::size_t>(destination_rank)]);
      }
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

  // Whether every ordered pair of distinct ranks costs alike: every rank hangs off one and the
  // same switch by links of equal cost, and the switch reaches every rank at equal cost
  // (switch:N, host-shm). Found once, from N look-ups (cached like between()); false for fewer
  // than 2 ranks.
  bool every_pair_alike();

  const Topology& topology() const { return router_.topology(); }

  // Whether the topology's rank symmetry holds (priced from representatives, as above), and the
  // period P it gives a circulant schedule: rank r reaches r + offset (mod N) at the cost rank
  // r + P does (P = the place of the leading digit when it turns, N otherwise; 1 on ring:N).
  bool symmetric() const { return symmetry_.has_value(); }
  int offset_period() const { return symmetry_ ? symmetry_->offset_period : nranks_; }
  // Whether routes from this rank are priced from its representative's row (filled on demand):
  // false without a symmetry, or where a route's bottleneck depends on a tie.
  bool priced_by_symmetry(int source_rank) {
    return symmetry_ && source_rank >= 0 && source_rank < nranks_ && symmetric_cost(source_rank, source_rank) != nullptr;
  }

 private:
  // The symmetry's digits and the rows of its representatives (symmetric_cost).
  struct Symmetry {
    std::vector<int> radices;               // most significant first
    std::vector<int> places;                // each digit's place value
    std::vector<int> representative_places; // a non-turning digit's place in the representatives' index; 0 turning
    std::vector<std::vector<RouteCost>> rows;  // [representative]: its costs to every rank; empty: not yet
    std::vector<unsigned char> usable;         // [representative]: 0 unknown, 1 usable, 2 priced as without symmetry
    int offset_period = 0;
  };
  // The cost from the representative's row, or nullptr where the row is not usable.
  const RouteCost* symmetric_cost(int source_rank, int destination_rank);
  bool fill_representative_row(std::size_t index, int representative);
  RouteCost look_up(int source_rank, int destination_rank);  // fills the cache
  RouteCost compute(int source_rank, int destination_rank);

  // A rank's only link, to a switch, when it relays nothing; row -1 otherwise.
  // Costs as RouteCost: seconds per byte = 1 / bandwidth (0 when unlimited), so that the
  // bottleneck's, 1 / min(a, b), is max(1 / a, 1 / b), the same double, with no division per call.
  struct Uplink {
    int row = -1;                // its switch's entry in switch_rows_
    RouteCost link;              // the link's, with the switch's capacity when limited
  };
  using SwitchRoute = RouteCost;  // from a switch to a rank; a negative latency: not yet known
  static RouteCost through(const Uplink& uplink, const SwitchRoute& rest) {
    return {uplink.link.latency_seconds + rest.latency_seconds,
            std::max(uplink.link.seconds_per_byte, rest.seconds_per_byte)};
  }
  static std::vector<Uplink> uplinks_of(const Topology& topology, std::vector<NodeId>& switches);

  Router router_;
  int nranks_;
  std::size_t max_rows_;
  std::size_t cached_rows_ = 0;
  // rows_by_offset_[(d - s) mod N][s]; an empty row is not cached, a negative latency not yet known.
  std::vector<std::vector<RouteCost>> rows_by_offset_;
  std::vector<NodeId> switches_;                       // [Uplink::row]: the switch
  std::vector<Uplink> uplinks_;                        // [rank]
  std::vector<std::vector<SwitchRoute>> switch_rows_;  // [Uplink::row][rank]; empty: not cached
  std::optional<Symmetry> symmetry_;
  enum class Uniformity : unsigned char { unknown, uniform, varies };
  std::vector<Uniformity> uniformity_by_offset_;  // allocated on the first uniform_cost call
  Uniformity every_pair_ = Uniformity::unknown;
};

}  // namespace ringlab::simulator
