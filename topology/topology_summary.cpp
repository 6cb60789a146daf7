#include "topology/topology_summary.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "topology/routing.hpp"

namespace ringlab {

namespace {

std::string bandwidth_text(double bytes_per_second) {
  if (bytes_per_second == unlimited_capacity) return "unlimited";
  return fmt::format("{:g} GB/s", bytes_per_second / 1e9);
}

std::string latency_text(double seconds) { return fmt::format("{:g} us", seconds * 1e6); }

void print_route(std::ostream& out, const Topology& topology, const Route& route) {
  std::string path = topology.node(route.source).name;
  for (DirectedLinkId link : route.links) path += " -> " + topology.node(topology.directed_link(link).to).name;
  fmt::print(out, "  {} -> {}: {} hop{}, bottleneck {}, latency {}: {}\n", topology.rank_of(route.source),
             topology.rank_of(route.destination), route.hops(), route.hops() == 1 ? "" : "s",
             bandwidth_text(route.bottleneck_bandwidth), latency_text(route.latency), path);
}

// One line per footprint curve: its points as "value at footprint".
void print_footprint_curves(std::ostream& out, const FootprintCurves& curves) {
  if (curves.empty()) return;
  fmt::print(out, "footprint curves (replace the figures above for a call touching F bytes; clamped at the ends):\n");
  auto print_curve = [&](const char* name, const FootprintCurve& curve, auto value_text) {
    if (curve.empty()) return;
    std::vector<std::string> points;
    for (const CurvePoint& point : curve.points())
      points.push_back(fmt::format("{} at {:g} MiB", value_text(point.value), point.footprint_bytes / (1 << 20)));
    fmt::print(out, "  {}: {}\n", name, fmt::join(points, ", "));
  };
  print_curve("link bandwidth", curves.link_bandwidth, bandwidth_text);
  print_curve("switch capacity", curves.switch_capacity, bandwidth_text);
  print_curve("gamma", curves.gamma_seconds_per_byte, [](double value) { return fmt::format("{:.3g} s/B", value); });
  print_curve("link bandwidth factor", curves.link_bandwidth_factor,
              [](double value) { return fmt::format("x{:.3g}", value); });
  print_curve("copy cost ratio", curves.copy_cost_ratio, [](double value) { return fmt::format("{:.3g} x gamma", value); });
}

// One line per type: each op's gamma in cache / out of cache.
void print_type_op_gammas(std::ostream& out, const std::vector<TypeOpGamma>& table) {
  if (table.empty()) return;
  fmt::print(out, "gamma by type and op, s/B in cache / out of cache (reductions of each pair are priced relative to "
                  "float32/sum's):\n");
  std::vector<std::string> types;  // in the table's order
  for (const TypeOpGamma& row : table)
    if (std::find(types.begin(), types.end(), row.type) == types.end()) types.push_back(row.type);
  for (const std::string& type : types) {
    std::vector<std::string> ops;
    for (const TypeOpGamma& row : table)
      if (row.type == type)
        ops.push_back(fmt::format("{} {:.3g} / {:.3g}", row.op, row.in_cache_seconds_per_byte, row.out_of_cache_seconds_per_byte));
    fmt::print(out, "  {}: {}\n", type, fmt::join(ops, ", "));
  }
}

}  // namespace

void print_topology_summary(std::ostream& out, const Topology& topology, RouteListing listing) {
  const int endpoints = topology.num_endpoints();
  fmt::print(out, "topology {}: {} endpoints, {} switches, {} full-duplex links; endpoints {}\n", topology.name(),
             endpoints, topology.num_switches(), topology.num_links(),
             topology.endpoints_forward() ? "relay traffic (direct network)" : "do not relay traffic");
  std::map<std::pair<double, double>, int> link_classes;
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id)
    ++link_classes[{topology.directed_link(id).bandwidth, topology.directed_link(id).latency}];
  fmt::print(out, "directed links by bandwidth and latency:\n");
  for (const auto& [properties, count] : link_classes)
    fmt::print(out, "  {:>8} x {}, {}\n", count, bandwidth_text(properties.first), latency_text(properties.second));
  for (NodeId id = 0; id < topology.num_nodes(); ++id)
    if (topology.node(id).capacity < unlimited_capacity)
      fmt::print(out, "switch {} carries at most {} in all\n", topology.node(id).name,
                 bandwidth_text(topology.node(id).capacity));
  print_footprint_curves(out, topology.footprint_curves());
  print_type_op_gammas(out, topology.gamma_by_type_op());
  if (const std::optional<CpuSharing>& sharing = topology.cpu_sharing()) {
    std::map<int, std::vector<int>> ranks_of_cpu;
    for (std::size_t rank = 0; rank < sharing->cpu_of_rank.size(); ++rank)
      ranks_of_cpu[sharing->cpu_of_rank[rank]].push_back(static_cast<int>(rank));
    std::vector<std::string> groups;
    for (const auto& [cpu, ranks] : ranks_of_cpu) groups.push_back(fmt::format("CPU {}: {}", cpu, fmt::join(ranks, " ")));
    fmt::print(out,
               "CPU sharing ({}): links and gamma written for {:.3g} of a core; flow-level: a busy rank gets 1 / (busy + "
               "{:.3g} x waiting ranks of its CPU)\n",
               fmt::join(groups, "; "), sharing->written_share, sharing->waiting_rank_cost);
  }
  if (const std::optional<double> ratio = topology.copy_cost_ratio())
    fmt::print(out, "copy cost: copying a byte costs {:.3g} x gamma; flow-level: a receive the executor lands in scratch "
                    "is combined after the step's transfers (copied at this cost, or reduced at gamma)\n",
               *ratio);
  if (const std::optional<std::int64_t> fragment = topology.receive_fragment_bytes())
    fmt::print(out, "receive fragments: {} B; flow-level: a receive combined on arrival reduces each fragment as it lands\n",
               *fragment);

  Router router(topology);
  int farthest = 0;
  int most_hops = 0;
  int fewest_hops = endpoints > 1 ? topology.num_nodes() : 0;
  double lowest_bottleneck = unlimited_capacity;
  for (int rank = 1; rank < endpoints; ++rank) {
    const Route route = router.route(0, rank);
    if (route.hops() > most_hops) {
      most_hops = route.hops();
      farthest = rank;
    }
    fewest_hops = std::min(fewest_hops, route.hops());
    lowest_bottleneck = std::min(lowest_bottleneck, route.bottleneck_bandwidth);
  }
  if (endpoints > 1)
    fmt::print(out, "routes from rank 0: {} to {} hops, lowest bottleneck {}\n", fewest_hops, most_hops,
               bandwidth_text(lowest_bottleneck));

  if (listing == RouteListing::all && endpoints <= all_pairs_limit) {
    fmt::print(out, "all routes:\n");
    for (int source = 0; source < endpoints; ++source)
      for (int destination = 0; destination < endpoints; ++destination)
        if (source != destination) print_route(out, topology, router.route(source, destination));
    return;
  }
  std::vector<int> destinations;
  if (listing == RouteListing::all) {
    fmt::print(out, "routes from rank 0 (every pair is listed only up to {} endpoints):\n", all_pairs_limit);
    for (int rank = 1; rank < endpoints; ++rank) destinations.push_back(rank);
  } else {
    fmt::print(out, "example routes (--routes lists them all):\n");
    for (int rank : {1, endpoints / 2, endpoints - 1, farthest})
      if (rank > 0 && rank < endpoints && std::find(destinations.begin(), destinations.end(), rank) == destinations.end())
        destinations.push_back(rank);
  }
  for (int destination : destinations) print_route(out, topology, router.route(0, destination));
  if (destinations.empty()) fmt::print(out, "  (one endpoint: no routes)\n");
}

}  // namespace ringlab
