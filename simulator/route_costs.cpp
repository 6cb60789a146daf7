#include "simulator/route_costs.hpp"

#include <algorithm>
#include <stdexcept>

#include "topology/symmetry.hpp"

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
      switch_rows_(switches_.size()) {
  // Every rank on one switch (switch:N): that switch's one search prices every route, sooner than
  // checking a declared symmetry would.
  const bool star = topology.num_switches() == 1 &&
                    std::all_of(uplinks_.begin(), uplinks_.end(), [](const Uplink& uplink) { return uplink.row >= 0; });
  if (star || !rank_symmetry_holds(topology)) return;
  const RankSymmetry& declared = *topology.rank_symmetry();
  Symmetry symmetry;
  symmetry.radices = declared.radices;
  const std::size_t digits = declared.radices.size();
  symmetry.places.assign(digits, 1);
  symmetry.representative_places.assign(digits, 0);
  int representatives = 1;
  for (std::size_t digit = digits; digit-- > 0;) {
    if (digit + 1 < digits) symmetry.places[digit] = symmetry.places[digit + 1] * declared.radices[digit + 1];
    if (declared.turns[digit].empty()) {
      symmetry.representative_places[digit] = representatives;
      representatives *= declared.radices[digit];
    }
  }
  // Adding P = the leading digit's place (mod N) turns the leading digit: an automorphism that
  // takes (r, r + offset) to (r + P, r + P + offset) when that digit turns.
  symmetry.offset_period = declared.turns.front().empty() ? nranks_ : symmetry.places.front();
  symmetry.rows.resize(static_cast<std::size_t>(representatives));
  symmetry.usable.assign(static_cast<std::size_t>(representatives), 0);
  symmetry_ = std::move(symmetry);
}

const RouteCost* RouteCosts::symmetric_cost(int source_rank, int destination_rank) {
  Symmetry& symmetry = *symmetry_;
  int representative = 0;  // the source with its turning digits 0
  std::size_t index = 0;
  int turned_back = 0;     // the destination turned back by the source's turning digits
  int source = source_rank;
  int destination = destination_rank;
  for (std::size_t digit = symmetry.radices.size(); digit-- > 0;) {
    const int radix = symmetry.radices[digit];
    const int source_digit = source % radix;
    const int destination_digit = destination % radix;
    source /= radix;
    destination /= radix;
    const int place = symmetry.places[digit];
    if (symmetry.representative_places[digit] == 0 && radix > 1) {
      turned_back += (destination_digit - source_digit + radix) % radix * place;
    } else {
      representative += source_digit * place;
      index += static_cast<std::size_t>(source_digit * symmetry.representative_places[digit]);
      turned_back += destination_digit * place;
    }
  }
  if (symmetry.usable[index] == 0) symmetry.usable[index] = fill_representative_row(index, representative) ? 1 : 2;
  if (symmetry.usable[index] != 1) return nullptr;
  return &symmetry.rows[index][static_cast<std::size_t>(turned_back)];
}

// The representative's costs to every rank, as the Router's routes give them: from its own search
// when endpoints relay, else through its best first hop (the Router's rule: a direct link, else
// the neighbour switch whose search reaches the destination in the fewest (hops, latency), the
// lowest id on a tie). False when a route's bottleneck depends on how node ids break a tie.
bool RouteCosts::fill_representative_row(std::size_t index, int representative) {
  const Topology& topology = router_.topology();
  const NodeId source = topology.endpoint_node(representative);
  std::vector<RouteCost> row(static_cast<std::size_t>(nranks_));
  if (topology.endpoints_forward()) {
    const std::vector<Router::CostFromRoot> costs = router_.costs_from(source);
    for (int rank = 0; rank < nranks_; ++rank) {
      const Router::CostFromRoot& cost = costs[static_cast<std::size_t>(topology.endpoint_node(rank))];
      if (cost.hops < 0 || !cost.bottleneck_unique) return false;
      row[static_cast<std::size_t>(rank)] = {cost.latency, seconds_per_byte_of(cost.bottleneck)};
    }
  } else {
    struct FirstHop {
      DirectedLinkId link;
      std::vector<Router::CostFromRoot> rest;  // empty: an endpoint (reached by this link only)
    };
    std::vector<FirstHop> hops;
    for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
      const DirectedLink& link = topology.directed_link(id);
      if (link.from != source) continue;
      hops.push_back({id, topology.rank_of(link.to) >= 0 ? std::vector<Router::CostFromRoot>{} : router_.costs_from(link.to)});
    }
    std::sort(hops.begin(), hops.end(), [&](const FirstHop& a, const FirstHop& b) {
      return std::pair(topology.directed_link(a.link).to, a.link) < std::pair(topology.directed_link(b.link).to, b.link);
    });
    for (int rank = 0; rank < nranks_; ++rank) {
      const NodeId destination = topology.endpoint_node(rank);
      RouteCost& entry = row[static_cast<std::size_t>(rank)];
      if (destination == source) continue;  // no link: {0, 0}
      bool found = false;
      bool unique = true;
      std::pair<std::int32_t, double> best;
      double best_bottleneck = 0;
      for (const FirstHop& hop : hops) {
        const DirectedLink& first = topology.directed_link(hop.link);
        if (first.to == destination) {  // a direct link is the route
          found = true;
          unique = true;
          best = {1, first.latency};
          best_bottleneck = first.bandwidth;
          break;
        }
        if (hop.rest.empty()) continue;
        const Router::CostFromRoot& rest = hop.rest[static_cast<std::size_t>(destination)];
        if (rest.hops < 0) continue;
        const std::pair<std::int32_t, double> cost(1 + rest.hops, first.latency + rest.latency);
        const double bottleneck = std::min({first.bandwidth, topology.node(first.to).capacity, rest.bottleneck});
        if (!found || cost < best) {
          found = true;
          best = cost;
          best_bottleneck = bottleneck;
          unique = rest.bottleneck_unique;
        } else if (cost == best) {
          unique = unique && rest.bottleneck_unique && bottleneck == best_bottleneck;
        }
      }
      if (!found || !unique) return false;
      entry = {best.second, seconds_per_byte_of(best_bottleneck)};
    }
  }
  symmetry_->rows[index] = std::move(row);
  return true;
}

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
