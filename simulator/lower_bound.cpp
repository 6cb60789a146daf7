#include "simulator/lower_bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>

namespace ringlab::simulator {

namespace {

// Dinic's maximum flow on the topology's directed links plus a source and a sink node.
class FlowNetwork {
 public:
  explicit FlowNetwork(int nodes) : first_arc_(static_cast<std::size_t>(nodes), -1) {}

  void add_arc(int from, int to, double capacity) {
    arcs_.push_back({to, first_arc_[static_cast<std::size_t>(from)], capacity});
    first_arc_[static_cast<std::size_t>(from)] = static_cast<int>(arcs_.size()) - 1;
    arcs_.push_back({from, first_arc_[static_cast<std::size_t>(to)], 0.0});
    first_arc_[static_cast<std::size_t>(to)] = static_cast<int>(arcs_.size()) - 1;
  }

  double max_flow(int source, int sink) {
    double total = 0;
    while (levels_from(source, sink)) {
      next_arc_ = first_arc_;
      while (true) {
        const double pushed = push(source, sink, std::numeric_limits<double>::infinity());
        if (pushed <= 0) break;
        total += pushed;
      }
    }
    return total;
  }

 private:
  struct Arc {
    int to;
    int next;
    double residual;
  };
  static constexpr double negligible = 1e-9;  // bytes/s: link bandwidths are >= 1 B/s

  bool levels_from(int source, int sink) {
    level_.assign(first_arc_.size(), -1);
    std::queue<int> queue;
    level_[static_cast<std::size_t>(source)] = 0;
    queue.push(source);
    while (!queue.empty()) {
      const int node = queue.front();
      queue.pop();
      for (int arc = first_arc_[static_cast<std::size_t>(node)]; arc >= 0; arc = arcs_[static_cast<std::size_t>(arc)].next) {
        const Arc& a = arcs_[static_cast<std::size_t>(arc)];
        if (a.residual > negligible && level_[static_cast<std::size_t>(a.to)] < 0) {
          level_[static_cast<std::size_t>(a.to)] = level_[static_cast<std::size_t>(node)] + 1;
          queue.push(a.to);
        }
      }
    }
    return level_[static_cast<std::size_t>(sink)] >= 0;
  }

  double push(int node, int sink, double limit) {
    if (node == sink) return limit;
    for (int& arc = next_arc_[static_cast<std::size_t>(node)]; arc >= 0; arc = arcs_[static_cast<std::size_t>(arc)].next) {
      Arc& a = arcs_[static_cast<std::size_t>(arc)];
      if (a.residual <= negligible || level_[static_cast<std::size_t>(a.to)] != level_[static_cast<std::size_t>(node)] + 1)
        continue;
      const double pushed = push(a.to, sink, std::min(limit, a.residual));
      if (pushed > 0) {
        a.residual -= pushed;
        arcs_[static_cast<std::size_t>(arc ^ 1)].residual += pushed;
        return pushed;
      }
    }
    return 0;
  }

  std::vector<Arc> arcs_;
  std::vector<int> first_arc_;
  std::vector<int> next_arc_;
  std::vector<int> level_;
};

// Least-latency distance from `source` to every node, every node relaying.
std::vector<double> latencies_from(const Topology& topology, NodeId source) {
  std::vector<std::vector<DirectedLinkId>> out(static_cast<std::size_t>(topology.num_nodes()));
  for (DirectedLinkId link = 0; link < topology.num_directed_links(); ++link)
    out[static_cast<std::size_t>(topology.directed_link(link).from)].push_back(link);
  std::vector<double> distance(out.size(), std::numeric_limits<double>::infinity());
  using Entry = std::pair<double, NodeId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  distance[static_cast<std::size_t>(source)] = 0;
  queue.push({0.0, source});
  while (!queue.empty()) {
    const auto [at, node] = queue.top();
    queue.pop();
    if (at > distance[static_cast<std::size_t>(node)]) continue;
    for (const DirectedLinkId link : out[static_cast<std::size_t>(node)]) {
      const DirectedLink& directed = topology.directed_link(link);
      const double through = at + directed.latency;
      if (through < distance[static_cast<std::size_t>(directed.to)]) {
        distance[static_cast<std::size_t>(directed.to)] = through;
        queue.push({through, directed.to});
      }
    }
  }
  return distance;
}

void add_cut(std::vector<Cut>& cuts, Cut cut) {
  if (std::find(cuts.begin(), cuts.end(), cut) == cuts.end()) cuts.push_back(cut);
}

}  // namespace

double AllreduceLowerBound::seconds(double bytes) const {
  double bound = latency_seconds;
  for (const Cut& cut : cuts) bound = std::max(bound, bytes / cut.bytes_per_second + cut.latency_seconds);
  return bound;
}

double max_flow_bytes_per_second(const Topology& topology, const std::vector<int>& sources, const std::vector<int>& sinks) {
  const int source = topology.num_nodes();
  const int sink = source + 1;
  FlowNetwork network(topology.num_nodes() + 2);
  for (DirectedLinkId link = 0; link < topology.num_directed_links(); ++link) {
    const DirectedLink& directed = topology.directed_link(link);
    network.add_arc(directed.from, directed.to, directed.bandwidth);
  }
  const double unlimited = std::numeric_limits<double>::infinity();
  for (const int rank : sources) network.add_arc(source, topology.endpoint_node(rank), unlimited);
  for (const int rank : sinks) network.add_arc(topology.endpoint_node(rank), sink, unlimited);
  return network.max_flow(source, sink);
}

AllreduceLowerBound allreduce_lower_bound(const Topology& topology) {
  const int nranks = topology.num_endpoints();
  if (nranks < 2)
    throw std::invalid_argument(fmt::format("a lower bound needs at least 2 ranks; topology '{}' has {}", topology.name(), nranks));
  AllreduceLowerBound bound;
  std::vector<double> in_bandwidth(static_cast<std::size_t>(topology.num_nodes()), 0.0);
  std::vector<double> out_bandwidth(in_bandwidth.size(), 0.0);
  std::vector<double> in_latency(in_bandwidth.size(), std::numeric_limits<double>::infinity());
  std::vector<double> out_latency(in_latency);
  for (DirectedLinkId link = 0; link < topology.num_directed_links(); ++link) {
    const DirectedLink& directed = topology.directed_link(link);
    in_bandwidth[static_cast<std::size_t>(directed.to)] += directed.bandwidth;
    out_bandwidth[static_cast<std::size_t>(directed.from)] += directed.bandwidth;
    in_latency[static_cast<std::size_t>(directed.to)] = std::min(in_latency[static_cast<std::size_t>(directed.to)], directed.latency);
    out_latency[static_cast<std::size_t>(directed.from)] = std::min(out_latency[static_cast<std::size_t>(directed.from)], directed.latency);
  }
  double least_in_latency = std::numeric_limits<double>::infinity();
  for (int rank = 0; rank < nranks; ++rank) {
    const auto node = static_cast<std::size_t>(topology.endpoint_node(rank));
    least_in_latency = std::min(least_in_latency, in_latency[node]);
    add_cut(bound.cuts, {in_bandwidth[node], in_latency[node]});
    add_cut(bound.cuts, {out_bandwidth[node], out_latency[node]});  // what leaves r starts on one of its links
  }
  std::vector<int> first_half;
  std::vector<int> second_half;
  for (int rank = 0; rank < nranks; ++rank) (rank < nranks / 2 ? first_half : second_half).push_back(rank);
  bound.bisection_a_to_b = {max_flow_bytes_per_second(topology, first_half, second_half), least_in_latency};
  bound.bisection_b_to_a = {max_flow_bytes_per_second(topology, second_half, first_half), least_in_latency};
  add_cut(bound.cuts, bound.bisection_a_to_b);
  add_cut(bound.cuts, bound.bisection_b_to_a);
  for (const int source : {0, nranks / 2, nranks - 1}) {
    const std::vector<double> distance = latencies_from(topology, topology.endpoint_node(source));
    for (int rank = 0; rank < nranks; ++rank)
      bound.latency_seconds = std::max(bound.latency_seconds, distance[static_cast<std::size_t>(topology.endpoint_node(rank))]);
  }
  return bound;
}

}  // namespace ringlab::simulator
