#include "topology/nvlink_rings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <tuple>

namespace ringlab {

namespace {

constexpr int max_searched_ranks = 16;      // nodes of more ranks keep rank order
constexpr int max_rings = 16;               // NCCL's MAXCHANNELS / 4: the rings before both doublings
constexpr std::int64_t search_budget = 200000;  // cycle-search steps per ring bandwidth
constexpr int max_split = 4;                // ring bandwidths tried: a link's bandwidth / 1 .. 4
constexpr double duplicate_factor = 1.25;   // ncclTopoDupChannels: 25 GB/s over NCCL's 20 a link
constexpr int max_channels = 64;            // NCCL's MAXCHANNELS

// [from][to]: the bandwidth of the direct links from local rank `from` to local rank `to`.
using Capacity = std::vector<std::vector<double>>;

// Node 0's direct links between its ranks 0 .. G-1; nullopt when another node's differ.
std::optional<Capacity> node_capacity(const Topology& topology, int group) {
  const int nodes = topology.num_endpoints() / group;
  std::vector<std::tuple<int, int, int, double>> direct;  // (node, from, to, bandwidth)
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    const int from = topology.rank_of(link.from);
    const int to = topology.rank_of(link.to);
    if (from < 0 || to < 0 || from / group != to / group || from == to) continue;
    direct.emplace_back(from / group, from % group, to % group, link.bandwidth);
  }
  std::stable_sort(direct.begin(), direct.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  const auto empty = Capacity(static_cast<std::size_t>(group), std::vector<double>(static_cast<std::size_t>(group), 0));
  Capacity first = empty;
  auto link = direct.begin();
  for (int node = 0; node < nodes; ++node) {  // one node's matrix at a time
    Capacity capacity = empty;
    for (; link != direct.end() && std::get<0>(*link) == node; ++link)
      capacity[static_cast<std::size_t>(std::get<1>(*link))][static_cast<std::size_t>(std::get<2>(*link))] += std::get<3>(*link);
    if (node == 0) first = std::move(capacity);
    else if (capacity != first) return std::nullopt;
  }
  return first;
}

// The ranks joined by direct links (endpoint to endpoint), as sets: G when every set is G
// consecutive ranks m G .. m G + G - 1, 0 when no rank has a direct link, -1 otherwise.
int direct_group_size(const Topology& topology) {
  const int ranks = topology.num_endpoints();
  std::vector<int> lowest(static_cast<std::size_t>(ranks));  // union-find: each rank's set's root
  for (int rank = 0; rank < ranks; ++rank) lowest[static_cast<std::size_t>(rank)] = rank;
  const auto root = [&lowest](int rank) {
    while (lowest[static_cast<std::size_t>(rank)] != rank) {
      int& parent = lowest[static_cast<std::size_t>(rank)];
      parent = lowest[static_cast<std::size_t>(parent)];  // halve the path
      rank = parent;
    }
    return rank;
  };
  bool any = false;
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); id += 2) {
    const DirectedLink& link = topology.directed_link(id);
    const int a = topology.rank_of(link.from);
    const int b = topology.rank_of(link.to);
    if (a < 0 || b < 0 || a == b) continue;
    any = true;
    const int ra = root(a);
    const int rb = root(b);
    lowest[static_cast<std::size_t>(std::max(ra, rb))] = std::min(ra, rb);
  }
  if (!any) return 0;
  int group = 1;
  while (group < ranks && root(group) == 0) ++group;
  if (ranks % group != 0) return -1;
  for (int rank = 0; rank < ranks; ++rank)
    if (root(rank) != rank / group * group) return -1;
  return group;
}

// Packs Hamiltonian cycles into `slots` ([from][to]: the rings a link still takes), each using
// one slot of each hop, backtracking; `best` keeps the largest set found. Cycles start at local
// rank 0, try the hop with the most slots left first (as NCCL tries its widest paths first) and
// come in lexicographic order, so no set is tried twice.
class RingPacker {
 public:
  RingPacker(std::vector<std::vector<int>> slots, int target)
      : slots_(std::move(slots)), group_(static_cast<int>(slots_.size())), target_(target) {}

  std::vector<std::vector<int>> pack() {
    extend();
    return best_;
  }

 private:
  std::vector<std::vector<int>> slots_;
  int group_;
  int target_;
  std::int64_t budget_ = search_budget;
  std::vector<std::vector<int>> chosen_;
  std::vector<std::vector<int>> best_;
  std::vector<int> path_;
  std::vector<bool> visited_;

  bool done() const { return static_cast<int>(best_.size()) >= target_ || budget_ <= 0; }

  void extend() {
    if (chosen_.size() > best_.size()) best_ = chosen_;
    if (done()) return;
    path_ = {0};
    visited_.assign(static_cast<std::size_t>(group_), false);
    visited_[0] = true;
    grow();
  }

  int& slot(int from, int to) { return slots_[static_cast<std::size_t>(from)][static_cast<std::size_t>(to)]; }

  void grow() {
    if (--budget_ <= 0) return;
    const int last = path_.back();
    if (static_cast<int>(path_.size()) == group_) {
      if (slot(last, 0) == 0 || (!chosen_.empty() && path_ < chosen_.back())) return;
      use_cycle();
      return;
    }
    std::vector<int> next;
    for (int local = 0; local < group_; ++local)
      if (!visited_[static_cast<std::size_t>(local)] && slot(last, local) > 0) next.push_back(local);
    std::stable_sort(next.begin(), next.end(), [&](int a, int b) { return slot(last, a) > slot(last, b); });
    for (const int local : next) {
      path_.push_back(local);
      visited_[static_cast<std::size_t>(local)] = true;
      grow();
      visited_[static_cast<std::size_t>(local)] = false;
      path_.pop_back();
      if (done()) return;
    }
  }

  // Takes the cycle in path_, packs more on what is left, then gives its slots back.
  void use_cycle() {
    const std::vector<int> cycle = path_;
    for (int i = 0; i < group_; ++i) --slot(cycle[static_cast<std::size_t>(i)], cycle[static_cast<std::size_t>((i + 1) % group_)]);
    chosen_.push_back(cycle);
    const std::vector<bool> visited = visited_;
    extend();
    path_ = cycle;
    visited_ = visited;
    chosen_.pop_back();
    for (int i = 0; i < group_; ++i) ++slot(cycle[static_cast<std::size_t>(i)], cycle[static_cast<std::size_t>((i + 1) % group_)]);
  }
};

// The rings that fit at ring bandwidth `ring_bandwidth`.
std::vector<std::vector<int>> rings_at(const Capacity& capacity, double ring_bandwidth) {
  const std::size_t group = capacity.size();
  std::vector<std::vector<int>> slots(group, std::vector<int>(group, 0));
  int target = max_rings;
  for (std::size_t from = 0; from < group; ++from) {
    int out = 0;
    for (std::size_t to = 0; to < group; ++to) {
      slots[from][to] = static_cast<int>(std::floor(capacity[from][to] / ring_bandwidth * (1 + 1e-9)));
      out += slots[from][to];
    }
    target = std::min(target, out);
  }
  if (target == 0) return {};
  return RingPacker(std::move(slots), target).pack();
}

}  // namespace

NodeRings nvlink_rings(const Topology& topology) {
  NodeRings found;
  const int group = direct_group_size(topology);
  if (group == 0) {
    found.note = "rank order (no direct links between ranks)";
    return found;
  }
  if (group < 0 || group > max_searched_ranks) {
    found.note = fmt::format("rank order (the ranks joined by direct links are not nodes of 2 to {} consecutive ranks)",
                             max_searched_ranks);
    return found;
  }
  const std::optional<Capacity> node_links = node_capacity(topology, group);
  if (!node_links) {
    found.note = "rank order (the nodes' direct links differ; rings are searched where every node has node 0's)";
    return found;
  }
  const Capacity& capacity = *node_links;
  std::vector<double> bandwidths;
  double slowest = 0;
  double whole = 0;  // the least direct bandwidth out of a rank
  for (std::size_t from = 0; from < capacity.size(); ++from) {
    double out = 0;
    for (const double bandwidth : capacity[from]) {
      if (bandwidth <= 0) continue;
      out += bandwidth;
      slowest = slowest == 0 ? bandwidth : std::min(slowest, bandwidth);
      for (int split = 1; split <= max_split; ++split) bandwidths.push_back(bandwidth / split);
    }
    whole = from == 0 ? out : std::min(whole, out);
  }
  if (whole == 0) {
    found.note = "rank order (no direct links between a node's ranks)";
    return found;
  }
  std::sort(bandwidths.rbegin(), bandwidths.rend());
  double best_total = 0;
  for (std::size_t i = 0; i < bandwidths.size(); ++i) {
    if (i > 0 && bandwidths[i] >= bandwidths[i - 1] * (1 - 1e-9)) continue;
    std::vector<std::vector<int>> rings = rings_at(capacity, bandwidths[i]);
    const double total = static_cast<double>(rings.size()) * bandwidths[i];
    if (total > best_total * (1 + 1e-9)) {
      best_total = total;
      found.rings = std::move(rings);
      found.ring_bandwidth = bandwidths[i];
    }
    if (best_total >= whole * (1 - 1e-9)) break;
  }
  if (found.rings.empty()) {
    found.note = "rank order (no ring over direct links alone)";
    return found;
  }
  const int rings = static_cast<int>(found.rings.size());
  const int duplicated = found.ring_bandwidth >= duplicate_factor * slowest * (1 - 1e-9) ? 2 * rings : rings;
  found.channels = std::min(2 * duplicated, max_channels);
  found.note = fmt::format("{} rings over direct links of {:.3g} GB/s each, {} channels", rings,
                           found.ring_bandwidth / 1e9, found.channels);
  return found;
}

}  // namespace ringlab
