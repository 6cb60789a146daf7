#include "topology/topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace ringlab {

namespace {

void check_direction(const LinkDirection& direction, const char* which) {
  if (!std::isfinite(direction.bandwidth) || direction.bandwidth <= 0)
    throw std::invalid_argument(
        fmt::format("{} bandwidth {} is not a positive number of bytes/s", which, direction.bandwidth));
  if (!std::isfinite(direction.latency) || direction.latency < 0)
    throw std::invalid_argument(fmt::format("{} latency {} is not a number of seconds >= 0", which, direction.latency));
}

// Disjoint sets over node ids, for the connectivity checks.
class NodeSets {
 public:
  explicit NodeSets(int size) : parent_(static_cast<std::size_t>(size)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  NodeId find(NodeId node) {
    while (parent_[static_cast<std::size_t>(node)] != node) {
      NodeId& up = parent_[static_cast<std::size_t>(node)];
      up = parent_[static_cast<std::size_t>(up)];
      node = up;
    }
    return node;
  }
  void join(NodeId a, NodeId b) {
    const NodeId root_a = find(a);
    const NodeId root_b = find(b);
    if (root_a != root_b) parent_[static_cast<std::size_t>(std::max(root_a, root_b))] = std::min(root_a, root_b);
  }

 private:
  std::vector<NodeId> parent_;
};

std::string describe(const Topology& topology, NodeId id) {
  const Node& node = topology.node(id);
  if (node.kind == NodeKind::endpoint)
    return fmt::format("endpoint {} ('{}', node {})", topology.rank_of(id), node.name, id);
  return fmt::format("switch '{}' (node {})", node.name, id);
}

void check_no_parallel_links(const Topology& topology) {
  std::vector<std::tuple<NodeId, NodeId, LinkId>> pairs;
  pairs.reserve(static_cast<std::size_t>(topology.num_links()));
  for (LinkId link = 0; link < topology.num_links(); ++link) {
    const DirectedLink& forward = topology.directed_link(Topology::forward_of(link));
    pairs.emplace_back(std::min(forward.from, forward.to), std::max(forward.from, forward.to), link);
  }
  std::sort(pairs.begin(), pairs.end());
  for (std::size_t i = 1; i < pairs.size(); ++i)
    if (std::get<0>(pairs[i]) == std::get<0>(pairs[i - 1]) && std::get<1>(pairs[i]) == std::get<1>(pairs[i - 1]))
      throw std::invalid_argument(fmt::format(
          "links[{}] joins nodes {} and {} like links[{}]; merge them into one link with the summed bandwidth",
          std::get<2>(pairs[i]), std::get<0>(pairs[i]), std::get<1>(pairs[i]), std::get<2>(pairs[i - 1])));
}

// Without forwarding, two endpoints reach each other only through a direct link or through one
// connected group of switches ("switch cluster") that both touch.
void check_endpoints_reach_each_other_through_switches(const Topology& topology) {
  const int nodes = topology.num_nodes();
  const int endpoints = topology.num_endpoints();
  NodeSets clusters(nodes);
  std::vector<std::vector<NodeId>> touches(static_cast<std::size_t>(endpoints));  // cluster roots and direct peers
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); id += 2) {
    const DirectedLink& link = topology.directed_link(id);
    if (topology.rank_of(link.from) < 0 && topology.rank_of(link.to) < 0) clusters.join(link.from, link.to);
  }
  std::vector<int> endpoints_touching(static_cast<std::size_t>(nodes), 0);
  std::vector<int> last_toucher(static_cast<std::size_t>(nodes), -1);
  for (DirectedLinkId id = 0; id < topology.num_directed_links(); ++id) {
    const DirectedLink& link = topology.directed_link(id);
    const int rank = topology.rank_of(link.from);
    if (rank < 0) continue;
    const NodeId target = topology.rank_of(link.to) < 0 ? clusters.find(link.to) : link.to;
    touches[static_cast<std::size_t>(rank)].push_back(target);
    if (topology.rank_of(link.to) < 0 && last_toucher[static_cast<std::size_t>(target)] != rank) {
      last_toucher[static_cast<std::size_t>(target)] = rank;
      if (++endpoints_touching[static_cast<std::size_t>(target)] == endpoints) return;  // one cluster serves all
    }
  }
  // General case: count, for every endpoint, the endpoints it reaches.
  std::vector<std::vector<int>> cluster_members(static_cast<std::size_t>(nodes));
  for (int rank = 0; rank < endpoints; ++rank)
    for (NodeId target : touches[static_cast<std::size_t>(rank)])
      if (topology.rank_of(target) < 0) cluster_members[static_cast<std::size_t>(target)].push_back(rank);
  std::vector<int> reached_by(static_cast<std::size_t>(endpoints), -1);
  for (int rank = 0; rank < endpoints; ++rank) {
    reached_by[static_cast<std::size_t>(rank)] = rank;
    for (NodeId target : touches[static_cast<std::size_t>(rank)]) {
      if (topology.rank_of(target) >= 0) {
        reached_by[static_cast<std::size_t>(topology.rank_of(target))] = rank;
        continue;
      }
      for (int member : cluster_members[static_cast<std::size_t>(target)])
        reached_by[static_cast<std::size_t>(member)] = rank;
    }
    for (int other = 0; other < endpoints; ++other)
      if (reached_by[static_cast<std::size_t>(other)] != rank)
        throw std::invalid_argument(fmt::format(
            "{} cannot reach {}: endpoints do not relay traffic (endpoints_forward is false), so they need a direct "
            "link or a common switch; add one, or set endpoints_forward to true for a direct network",
            describe(topology, topology.endpoint_node(rank)), describe(topology, topology.endpoint_node(other))));
  }
}

// The one check of a CpuSharing that depends on the endpoints added so far.
void check_one_cpu_per_endpoint(const CpuSharing& sharing, int endpoints) {
  if (std::ssize(sharing.cpu_of_rank) != endpoints)
    throw std::invalid_argument(fmt::format("cpu_sharing.cpu_of_rank has {} entries; expected one CPU per endpoint ({})",
                                            sharing.cpu_of_rank.size(), endpoints));
}

}  // namespace

std::string_view name_of(NodeKind kind) { return kind == NodeKind::endpoint ? "endpoint" : "switch"; }

void Topology::set_gamma_seconds_per_byte(double seconds_per_byte) {
  if (!std::isfinite(seconds_per_byte) || seconds_per_byte < 0)
    throw std::invalid_argument(
        fmt::format("gamma {} is not a finite number of seconds per byte >= 0 (e.g. 1e-10)", seconds_per_byte));
  gamma_seconds_per_byte_ = seconds_per_byte;
}

void Topology::set_copy_cost_ratio(double copy_over_reduce) {
  if (!std::isfinite(copy_over_reduce) || copy_over_reduce < 0)
    throw std::invalid_argument(fmt::format(
        "copy cost ratio {} is not a finite number >= 0 (copying a byte over reducing one, e.g. 0.7)", copy_over_reduce));
  copy_cost_ratio_ = copy_over_reduce;
}

void Topology::adjust_link(DirectedLinkId id, double bandwidth_factor, double added_latency) {
  if (id < 0 || id >= num_directed_links())
    throw std::invalid_argument(fmt::format("directed link {} does not exist (the topology has {})", id, num_directed_links()));
  if (!std::isfinite(bandwidth_factor) || bandwidth_factor <= 0 || !std::isfinite(added_latency) || added_latency < 0)
    throw std::invalid_argument(fmt::format("link adjustment x{} bandwidth, +{} s latency: the factor must be > 0 and "
                                            "the latency >= 0, both finite",
                                            bandwidth_factor, added_latency));
  DirectedLink& link = directed_links_[static_cast<std::size_t>(id)];
  link.bandwidth *= bandwidth_factor;
  link.latency += added_latency;
}

void Topology::set_receive_fragment_bytes(std::int64_t bytes) {
  if (bytes < 1)
    throw std::invalid_argument(fmt::format(
        "receive fragment of {} bytes: expected a whole number of bytes >= 1 (e.g. 131072, the transport's slot)", bytes));
  receive_fragment_bytes_ = bytes;
}

void Topology::set_footprint_curves(FootprintCurves curves) {
  if (!curves.link_bandwidth.empty() && !curves.link_bandwidth_factor.empty())
    throw std::invalid_argument(
        "link_bandwidth and link_bandwidth_factor both set the links' bandwidth; give one of the two curves");
  if (!curves.link_bandwidth.empty()) {
    if (directed_links_.empty()) throw std::invalid_argument("a link_bandwidth curve needs links; add them first");
    for (std::size_t id = 1; id < directed_links_.size(); ++id)
      if (directed_links_[id].bandwidth != directed_links_[0].bandwidth)
        throw std::invalid_argument(fmt::format(
            "a link_bandwidth curve sets every link's bandwidth, but links[{}] has {} B/s and links[0] {} B/s; give "
            "every link one bandwidth or leave the curve out",
            id / 2, directed_links_[id].bandwidth, directed_links_[0].bandwidth));
  }
  if (!curves.switch_capacity.empty()) {
    std::optional<double> capacity;
    for (const Node& node : nodes_) {
      if (node.kind != NodeKind::switch_node || node.capacity == unlimited_capacity) continue;
      if (capacity && node.capacity != *capacity)
        throw std::invalid_argument(fmt::format(
            "a switch_capacity curve sets every limited switch's capacity, but switch '{}' has {} B/s and another {} "
            "B/s; give them one capacity or leave the curve out",
            node.name, node.capacity, *capacity));
      capacity = node.capacity;
    }
    if (!capacity) throw std::invalid_argument("a switch_capacity curve needs a switch with a capacity; there is none");
  }
  footprint_curves_ = std::move(curves);
}

void Topology::set_gamma_by_type_op(std::vector<TypeOpGamma> table) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const TypeOpGamma& row = table[i];
    if (row.type.empty() || row.op.empty())
      throw std::invalid_argument(fmt::format(
          "gamma_by_type_op[{}] has an empty type or op; give both as ringlab names them (e.g. \"bfloat16\", \"max\")", i));
    for (const double cost : {row.in_cache_seconds_per_byte, row.out_of_cache_seconds_per_byte})
      if (!std::isfinite(cost) || cost <= 0)
        throw std::invalid_argument(fmt::format(
            "gamma_by_type_op[{}] ({}/{}): {} is not a positive finite number of seconds per byte", i, row.type, row.op, cost));
    if (!pairs.emplace(row.type, row.op).second)
      throw std::invalid_argument(
          fmt::format("gamma_by_type_op[{}] repeats {}/{}; give each (type, op) once", i, row.type, row.op));
  }
  gamma_by_type_op_ = std::move(table);
}

void Topology::set_gamma_by_form(std::vector<FormGamma> table) {
  std::set<std::pair<std::string, int>> rows;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const FormGamma& row = table[i];
    if (row.form.empty())
      throw std::invalid_argument(fmt::format(
          "gamma_by_form[{}] has an empty form; give \"in-place\" or \"out-of-place\"", i));
    if (row.ranks_reducing < 1)
      throw std::invalid_argument(fmt::format(
          "gamma_by_form[{}] ({}): ranks_reducing is {}; give the number of ranks that reduced at once (>= 1)", i,
          row.form, row.ranks_reducing));
    for (const double cost : {row.in_cache_seconds_per_byte, row.out_of_cache_seconds_per_byte})
      if (!std::isfinite(cost) || cost <= 0)
        throw std::invalid_argument(fmt::format(
            "gamma_by_form[{}] ({}, {} ranks): {} is not a positive finite number of seconds per byte", i, row.form,
            row.ranks_reducing, cost));
    if (!rows.emplace(row.form, row.ranks_reducing).second)
      throw std::invalid_argument(fmt::format("gamma_by_form[{}] repeats {} with {} ranks reducing; give each once", i,
                                              row.form, row.ranks_reducing));
  }
  gamma_by_form_ = std::move(table);
}

void Topology::set_in_place_gamma_seconds_per_byte(double seconds_per_byte) {
  if (!std::isfinite(seconds_per_byte) || seconds_per_byte < 0)
    throw std::invalid_argument(fmt::format(
        "in-place gamma {} is not a finite number of seconds per byte >= 0 (e.g. 1e-10)", seconds_per_byte));
  in_place_gamma_seconds_per_byte_ = seconds_per_byte;
}

void Topology::set_cpu_sharing(CpuSharing sharing) {
  check_one_cpu_per_endpoint(sharing, num_endpoints());
  for (std::size_t rank = 0; rank < sharing.cpu_of_rank.size(); ++rank)
    if (sharing.cpu_of_rank[rank] < 0)
      throw std::invalid_argument(fmt::format("cpu_sharing.cpu_of_rank[{}] is {}; expected a CPU number >= 0", rank,
                                              sharing.cpu_of_rank[rank]));
  if (!(sharing.written_share > 0 && sharing.written_share <= 1))
    throw std::invalid_argument(fmt::format(
        "cpu_sharing.written_share is {}; expected the share of a core the links were written for, in (0, 1]",
        sharing.written_share));
  if (!(sharing.waiting_rank_cost >= 0 && sharing.waiting_rank_cost <= 1))
    throw std::invalid_argument(fmt::format(
        "cpu_sharing.waiting_rank_cost is {}; expected what a waiting rank costs its CPU, in [0, 1]",
        sharing.waiting_rank_cost));
  cpu_sharing_ = std::move(sharing);
}

Topology Topology::at_footprint(double footprint_bytes) const {
  Topology copy = *this;
  copy.footprint_curves_ = {};
  if (!footprint_curves_.link_bandwidth.empty()) {
    const double bandwidth = footprint_curves_.link_bandwidth.at(footprint_bytes);
    for (DirectedLink& link : copy.directed_links_) link.bandwidth = bandwidth;
  }
  if (!footprint_curves_.link_bandwidth_factor.empty()) {
    const double factor = footprint_curves_.link_bandwidth_factor.at(footprint_bytes);
    for (DirectedLink& link : copy.directed_links_) link.bandwidth *= factor;
  }
  if (!footprint_curves_.switch_capacity.empty()) {
    const double capacity = footprint_curves_.switch_capacity.at(footprint_bytes);
    for (Node& node : copy.nodes_)
      if (node.kind == NodeKind::switch_node && node.capacity != unlimited_capacity) node.capacity = capacity;
  }
  if (!footprint_curves_.gamma_seconds_per_byte.empty())
    copy.gamma_seconds_per_byte_ = footprint_curves_.gamma_seconds_per_byte.at(footprint_bytes);
  if (!footprint_curves_.copy_cost_ratio.empty())
    copy.copy_cost_ratio_ = footprint_curves_.copy_cost_ratio.at(footprint_bytes);
  if (!footprint_curves_.in_place_gamma_seconds_per_byte.empty())
    copy.in_place_gamma_seconds_per_byte_ = footprint_curves_.in_place_gamma_seconds_per_byte.at(footprint_bytes);
  return copy;
}

void Topology::reserve(std::int64_t nodes, std::int64_t links) {
  if (nodes > max_topology_nodes || links > max_topology_links)
    throw std::invalid_argument(fmt::format("topology '{}' would have {} nodes and {} links; the limits are {} and {}",
                                            name_, nodes, links, max_topology_nodes, max_topology_links));
  nodes_.reserve(static_cast<std::size_t>(nodes));
  ranks_.reserve(static_cast<std::size_t>(nodes));
  directed_links_.reserve(static_cast<std::size_t>(2 * links));
}

NodeId Topology::add_endpoint(std::string name) {
  if (num_nodes() >= max_topology_nodes)
    throw std::invalid_argument(fmt::format("more than {} nodes", max_topology_nodes));
  const NodeId id = num_nodes();
  ranks_.push_back(num_endpoints());
  endpoints_.push_back(id);
  nodes_.push_back({NodeKind::endpoint, std::move(name), unlimited_capacity});
  return id;
}

NodeId Topology::add_switch(std::string name, double capacity) {
  if (num_nodes() >= max_topology_nodes)
    throw std::invalid_argument(fmt::format("more than {} nodes", max_topology_nodes));
  if (!(capacity > 0))
    throw std::invalid_argument(fmt::format("switch '{}': capacity {} is not a positive number of bytes/s", name, capacity));
  const NodeId id = num_nodes();
  ranks_.push_back(-1);
  nodes_.push_back({NodeKind::switch_node, std::move(name), capacity});
  return id;
}

LinkId Topology::add_link(NodeId a, NodeId b, LinkDirection a_to_b, LinkDirection b_to_a) {
  if (num_links() >= max_topology_links)
    throw std::invalid_argument(fmt::format("more than {} links", max_topology_links));
  if (a < 0 || a >= num_nodes() || b < 0 || b >= num_nodes())
    throw std::invalid_argument(fmt::format("link {} - {}: node ids must lie in [0, {})", a, b, num_nodes()));
  if (a == b) throw std::invalid_argument(fmt::format("link {} - {} joins a node to itself", a, b));
  check_direction(a_to_b, "a-to-b");
  check_direction(b_to_a, "b-to-a");
  const LinkId id = num_links();
  directed_links_.push_back({a, b, a_to_b.bandwidth, a_to_b.latency});
  directed_links_.push_back({b, a, b_to_a.bandwidth, b_to_a.latency});
  return id;
}

void Topology::validate() const {
  if (num_endpoints() == 0) throw std::invalid_argument("the topology has no endpoint (rank)");
  if (cpu_sharing_) check_one_cpu_per_endpoint(*cpu_sharing_, num_endpoints());
  check_no_parallel_links(*this);
  NodeSets components(num_nodes());
  for (DirectedLinkId id = 0; id < num_directed_links(); id += 2)
    components.join(directed_link(id).from, directed_link(id).to);
  const NodeId first = endpoint_node(0);
  for (NodeId id = 0; id < num_nodes(); ++id)
    if (components.find(id) != components.find(first))
      throw std::invalid_argument(fmt::format("{} is not connected to {}; add a link or remove the node",
                                              describe(*this, id), describe(*this, first)));
  if (!endpoints_forward_ && num_endpoints() > 1) check_endpoints_reach_each_other_through_switches(*this);
}

}  // namespace ringlab
