// A network: endpoints (the ranks), switches, and full-duplex links whose two directions each
// have a bandwidth (bytes/s) and a latency (seconds). Plain data; routes are in routing.hpp.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/footprint_curve.hpp"

namespace ringlab {

using NodeId = std::int32_t;
using LinkId = std::int32_t;          // a full-duplex link
using DirectedLinkId = std::int32_t;  // 2 * link for a -> b, 2 * link + 1 for b -> a

// Larger topologies are refused before anything is allocated.
inline constexpr std::int64_t max_topology_nodes = std::int64_t{1} << 20;
inline constexpr std::int64_t max_topology_links = std::int64_t{1} << 20;
inline constexpr double unlimited_capacity = std::numeric_limits<double>::infinity();

enum class NodeKind { endpoint, switch_node };
std::string_view name_of(NodeKind kind);  // "endpoint" or "switch"

struct LinkDirection {
  double bandwidth = 0;  // bytes/s, > 0
  double latency = 0;    // seconds, >= 0
};

struct Node {
  NodeKind kind = NodeKind::endpoint;
  std::string name;
  // Switches only: the aggregate bytes/s all traffic through the switch shares (a memory bus,
  // a blocking backplane). unlimited_capacity for a non-blocking switch.
  double capacity = unlimited_capacity;
};

// Ranks that share CPUs (processes bound to cores, more ranks than cores): rank r runs on CPU
// cpu_of_rank[r]. The bandwidth of every link at a rank's endpoint, and gamma, are written for
// `written_share` of a core, the share a rank gets while every rank of its CPU is busy. The
// flow-level model instead gives a rank whose CPU has b busy ranks (a flow or a reduction to
// finish) and w waiting ones 1 / (b + waiting_rank_cost x w) of the core: a waiting rank yields
// its CPU but its polling still costs waiting_rank_cost of a busy rank (measured by ringlab
// calibrate; 1 keeps the written share always, 0 gives the busy ranks the whole core). The
// closed form keeps the written share.
struct CpuSharing {
  std::vector<int> cpu_of_rank;
  double written_share = 1;       // (0, 1]
  double waiting_rank_cost = 1;   // [0, 1]
  friend bool operator==(const CpuSharing&, const CpuSharing&) = default;
};

// One (type, op)'s reduction cost, as ringlab calibrate measures it for every DataType x
// ReduceOp (collectives/datatype.hpp): seconds per byte reduced with operands in the cache and
// out of it, written like gamma (for `written_share` of a core). type and op are the names
// ringlab spells them ("bfloat16", "max"); this library does not interpret them (it depends on
// nothing else in the project): simulator/type_op_gamma.hpp does, and prices every pair relative
// to the float32/sum row (docs/topology-format.md, "Gamma by type and op").
struct TypeOpGamma {
  std::string type;
  std::string op;
  double in_cache_seconds_per_byte = 0;      // > 0
  double out_of_cache_seconds_per_byte = 0;  // > 0
  friend bool operator==(const TypeOpGamma&, const TypeOpGamma&) = default;
};

// The float32/sum reduce kernel in one operand form, as ringlab calibrate measures it with
// `ranks_reducing` ranks running it at once, each on a core of its own: seconds per byte reduced
// with operands in the cache and out of it, written like gamma. form is "in-place" (a = a + b:
// the left operand already in the output) or "out-of-place" (c = a + b), as the placements are
// spelled; simulator/type_op_gamma.hpp interprets the rows (docs/topology-format.md, "Gamma by
// type and op").
struct FormGamma {
  std::string form;
  int ranks_reducing = 1;                    // >= 1
  double in_cache_seconds_per_byte = 0;      // > 0
  double out_of_cache_seconds_per_byte = 0;  // > 0
  friend bool operator==(const FormGamma&, const FormGamma&) = default;
};

// A symmetry a builder knows of its topology (the presets ring, torus2d, dragonfly and nvswitch
// with whole units declare theirs; a file carries none). The ranks are the digits of a
// mixed-radix number, most significant first (torus2d:RxC: row, column); turning digit i adds 1
// to it modulo its radix and keeps the others, and `turns[i]`, when not empty, is the image of
// every node (endpoints, switches) under turning digit i. The symmetry holds when each such map
// is an automorphism: every link goes to a link of the same bandwidth and latency, every switch
// to one of the same capacity (topology/symmetry.hpp checks it; the simulator uses it only then).
struct RankSymmetry {
  std::vector<int> radices;                // their product is the number of endpoints
  std::vector<std::vector<NodeId>> turns;  // [digit]: node -> image; empty: the digit does not turn
};

struct DirectedLink {
  NodeId from = 0;
  NodeId to = 0;
  double bandwidth = 0;
  double latency = 0;
};

class Topology {
 public:
  explicit Topology(std::string name = "custom") : name_(std::move(name)) {}

  // Endpoints are the ranks: the k-th endpoint added is rank k. Adders throw
  // std::invalid_argument on bad ids, values or sizes past the limits.
  NodeId add_endpoint(std::string name);
  NodeId add_switch(std::string name, double capacity = unlimited_capacity);
  LinkId add_link(NodeId a, NodeId b, LinkDirection a_to_b, LinkDirection b_to_a);
  LinkId add_link(NodeId a, NodeId b, LinkDirection both_directions) {
    return add_link(a, b, both_directions, both_directions);
  }
  void reserve(std::int64_t nodes, std::int64_t links);
  // Direct networks (ring, torus, fully connected) relay traffic through endpoints; switched
  // networks do not, so a route's interior nodes are switches only. Default: false.
  void set_endpoints_forward(bool forward) { endpoints_forward_ = forward; }
  // The CPU (or device) reduction cost of the ranks, seconds per byte reduced, when known (a
  // calibrated topology carries it; the simulator uses it unless given another). Throws
  // std::invalid_argument for a negative or non-finite value.
  void set_gamma_seconds_per_byte(double seconds_per_byte);
  // What copying a byte costs the ranks' CPUs, as a multiple of gamma (reducing a byte), when
  // known (ringlab calibrate measures both kernels). With it the flow-level model prices the
  // executor's scratch receives (a receive whose elements a send of the same step still reads
  // lands in scratch) as the executor runs them: combined after the step's transfers, reduced at
  // gamma or, a plain receive, copied at this ratio x gamma. Without it (the presets) every
  // receive is priced alike. Throws std::invalid_argument for a negative or non-finite value.
  void set_copy_cost_ratio(double copy_over_reduce);
  // The largest piece of a message the transport hands a receive at once, when it delivers in
  // pieces (ringlab calibrate writes the shared-memory transport's slot size): a receive that
  // combines on arrival reduces each fragment as it lands, so its reduction overlaps its own
  // transfer (the flow-level model). Without it, a receive is reduced once it has arrived whole.
  // Throws std::invalid_argument for a value < 1.
  void set_receive_fragment_bytes(std::int64_t bytes);
  // Bandwidths and gamma that depend on the job's footprint (footprint_curve.hpp). Throws
  // std::invalid_argument, naming the link or switch, when a link_bandwidth curve is given but
  // the links do not all have one bandwidth (both directions), or a switch_capacity curve but
  // the limited switches do not all have one capacity (or there is none), or both link curves
  // are given. Call after the links.
  void set_footprint_curves(FootprintCurves curves);
  // The reduction cost of each (type, op) measured. Throws std::invalid_argument naming the row
  // ("gamma_by_type_op[i]") for an empty type or op, a pair given twice, or a cost that is not
  // positive and finite.
  void set_gamma_by_type_op(std::vector<TypeOpGamma> table);
  // The reduction cost of each operand form measured. Throws std::invalid_argument naming the
  // row ("gamma_by_form[i]") for an empty form, ranks_reducing < 1, a (form, ranks_reducing)
  // given twice, or a cost that is not positive and finite.
  void set_gamma_by_form(std::vector<FormGamma> table);
  // What an in-place reduction costs per byte where it is priced apart from an out-of-place one
  // (then priced at gamma): set by the simulator from gamma_by_form (simulator/type_op_gamma.hpp),
  // never read from or written to a file, as its footprint curve (FootprintCurves). Throws as
  // set_gamma_seconds_per_byte.
  void set_in_place_gamma_seconds_per_byte(double seconds_per_byte);
  // Throws std::invalid_argument naming the field when cpu_of_rank does not have one CPU (>= 0)
  // per endpoint, or a share or cost is out of range. Call after the endpoints.
  void set_cpu_sharing(CpuSharing sharing);
  // A symmetry of the network as built (see RankSymmetry), or none; unchecked here (symmetry.hpp
  // checks).
  void set_rank_symmetry(std::optional<RankSymmetry> symmetry) { rank_symmetry_ = std::move(symmetry); }
  // Multiplies directed link `id`'s bandwidth by `bandwidth_factor` (> 0) and adds `added_latency`
  // seconds (>= 0) to its latency: a transport's costs on top of the wire's
  // (simulator/nccl_protocol.hpp). Throws std::invalid_argument on a bad id or value.
  void adjust_link(DirectedLinkId id, double bandwidth_factor, double added_latency);
  // This topology as it is for a job touching `footprint_bytes`: every link's bandwidth, every
  // limited switch's capacity, gamma (both forms) and the copy cost ratio replaced by their curves' values there (those without a
  // curve kept; link_bandwidth_factor multiplies each link's own bandwidth), and no curves.
  // Without curves, a plain copy.
  Topology at_footprint(double footprint_bytes) const;

  const std::string& name() const { return name_; }
  bool endpoints_forward() const { return endpoints_forward_; }
  std::optional<double> gamma_seconds_per_byte() const { return gamma_seconds_per_byte_; }
  std::optional<double> copy_cost_ratio() const { return copy_cost_ratio_; }
  std::optional<std::int64_t> receive_fragment_bytes() const { return receive_fragment_bytes_; }
  const FootprintCurves& footprint_curves() const { return footprint_curves_; }
  const std::vector<TypeOpGamma>& gamma_by_type_op() const { return gamma_by_type_op_; }
  const std::vector<FormGamma>& gamma_by_form() const { return gamma_by_form_; }
  std::optional<double> in_place_gamma_seconds_per_byte() const { return in_place_gamma_seconds_per_byte_; }
  const std::optional<CpuSharing>& cpu_sharing() const { return cpu_sharing_; }
  const std::optional<RankSymmetry>& rank_symmetry() const { return rank_symmetry_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  int num_endpoints() const { return static_cast<int>(endpoints_.size()); }
  int num_switches() const { return num_nodes() - num_endpoints(); }
  int num_links() const { return static_cast<int>(directed_links_.size() / 2); }
  int num_directed_links() const { return static_cast<int>(directed_links_.size()); }

  const Node& node(NodeId id) const { return nodes_.at(static_cast<std::size_t>(id)); }
  NodeId endpoint_node(int rank) const { return endpoints_.at(static_cast<std::size_t>(rank)); }
  // The rank of an endpoint node, -1 for a switch.
  int rank_of(NodeId id) const { return ranks_.at(static_cast<std::size_t>(id)); }
  const DirectedLink& directed_link(DirectedLinkId id) const { return directed_links_.at(static_cast<std::size_t>(id)); }
  static DirectedLinkId reverse(DirectedLinkId id) { return id ^ 1; }
  static DirectedLinkId forward_of(LinkId link) { return 2 * link; }

  // Throws std::invalid_argument when the topology cannot be used: no endpoint, two links
  // joining the same pair of nodes ("links[i]" names them), a node no link reaches, or two
  // endpoints with no path between them under the forwarding rule.
  void validate() const;

 private:
  std::string name_;
  bool endpoints_forward_ = false;
  std::optional<double> gamma_seconds_per_byte_;
  std::optional<double> copy_cost_ratio_;
  std::optional<std::int64_t> receive_fragment_bytes_;
  FootprintCurves footprint_curves_;
  std::vector<TypeOpGamma> gamma_by_type_op_;  // empty: not measured
  std::vector<FormGamma> gamma_by_form_;       // empty: not measured
  std::optional<double> in_place_gamma_seconds_per_byte_;
  std::optional<CpuSharing> cpu_sharing_;
  std::optional<RankSymmetry> rank_symmetry_;
  std::vector<Node> nodes_;
  std::vector<NodeId> endpoints_;
  std::vector<int> ranks_;
  std::vector<DirectedLink> directed_links_;
};

}  // namespace ringlab
