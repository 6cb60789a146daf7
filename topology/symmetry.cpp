#include "topology/symmetry.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringlab {

bool rank_symmetry_holds(const Topology& topology) {
  const std::optional<RankSymmetry>& symmetry = topology.rank_symmetry();
  if (!symmetry || symmetry->radices.empty() || symmetry->turns.size() != symmetry->radices.size()) return false;
  std::int64_t product = 1;
  for (int radix : symmetry->radices) {
    if (radix < 1) return false;
    product *= radix;
    if (product > topology.num_endpoints()) return false;
  }
  if (product != topology.num_endpoints()) return false;
  const auto nodes = static_cast<std::size_t>(topology.num_nodes());
  // Outgoing directed links of each node, by neighbour (no two links join one pair).
  std::vector<std::size_t> start(nodes + 1, 0);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    ++start[static_cast<std::size_t>(topology.directed_link(id).from) + 1];
  for (std::size_t node = 0; node < nodes; ++node) start[node + 1] += start[node];
  std::vector<DirectedLinkId> out(static_cast<std::size_t>(topology.num_directed_links()));
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    out[next[static_cast<std::size_t>(topology.directed_link(id).from)]++] = id;
  const auto to_of = [&](DirectedLinkId id) { return topology.directed_link(id).to; };
  for (std::size_t node = 0; node < nodes; ++node)
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(start[node]), out.begin() + static_cast<std::ptrdiff_t>(start[node + 1]),
              [&](DirectedLinkId x, DirectedLinkId y) { return to_of(x) < to_of(y); });
  const std::size_t digits = symmetry->radices.size();
  for (std::size_t digit = 0; digit < digits; ++digit) {
    const std::vector<NodeId>& image = symmetry->turns[digit];
    if (image.empty()) continue;
    if (image.size() != nodes) return false;
    std::vector<bool> hit(nodes, false);
    for (NodeId target : image) {
      if (target < 0 || static_cast<std::size_t>(target) >= nodes || hit[static_cast<std::size_t>(target)]) return false;
      hit[static_cast<std::size_t>(target)] = true;
    }
    // The place value of the digit: rank x's digit is (x / place) % radix.
    std::int64_t place = 1;
    for (std::size_t below = digit + 1; below < digits; ++below) place *= symmetry->radices[below];
    const std::int64_t radix = symmetry->radices[digit];
    for (std::size_t node = 0; node < nodes; ++node) {
      const Node& from = topology.node(static_cast<NodeId>(node));
      const Node& to = topology.node(image[node]);
      if (from.kind != to.kind || from.capacity != to.capacity) return false;
      const int rank = topology.rank_of(static_cast<NodeId>(node));
      if (rank >= 0) {
        const std::int64_t value = rank / place % radix;
        const std::int64_t turned = rank + ((value + 1) % radix - value) * place;
        if (topology.endpoint_node(static_cast<int>(turned)) != image[node]) return false;
      }
    }
    for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
      const DirectedLink& link = topology.directed_link(id);
      const NodeId from = image[static_cast<std::size_t>(link.from)];
      const NodeId to = image[static_cast<std::size_t>(link.to)];
      const auto first = out.begin() + static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(from)]);
      const auto last = out.begin() + static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(from) + 1]);
      const auto found = std::lower_bound(first, last, to, [&](DirectedLinkId x, NodeId node) { return to_of(x) < node; });
      if (found == last || to_of(*found) != to) return false;
      const DirectedLink& mapped = topology.directed_link(*found);
      if (mapped.bandwidth != link.bandwidth || mapped.latency != link.latency) return false;
    }
  }
  return true;
}

}  // namespace ringlab
