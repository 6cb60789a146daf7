#include "topology/topology_io.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "io/checked_number.hpp"
#include "io/json_input.hpp"
#include "topology/physical_ranges.hpp"
#include "topology/presets.hpp"
#include "io/printable.hpp"

namespace ringlab {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(fmt::format("topology JSON: {}: {}", where, what));
}

void require_object(const nlohmann::json& value, const std::string& where, std::initializer_list<const char*> known) {
  if (!value.is_object()) fail(where, "expected a JSON object");
  for (const auto& item : value.items()) {
    bool listed = false;
    for (const char* key : known) listed = listed || item.key() == key;
    if (!listed) fail(where, fmt::format("unknown field \"{}\"; valid fields: {}", io::printable(item.key()), fmt::join(known, ", ")));
  }
}

const nlohmann::json& field(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.contains(key)) fail(where, fmt::format("missing field \"{}\"", key));
  return object.at(key);
}

// A number within `range`; the message names the JSON path, the value and the range.
double ranged_number(const nlohmann::json& value, const std::string& where, const io::NumberRange& range) {
  try {
    return io::check_json_number(value, where, range);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("topology JSON: {}", error.what()));
  }
}

LinkDirection direction_from_json(const nlohmann::json& object, const std::string& where) {
  require_object(object, where, {"bandwidth", "latency"});
  LinkDirection direction;
  direction.bandwidth = ranged_number(field(object, "bandwidth", where), where + ".bandwidth", ranges::bandwidth);
  direction.latency = ranged_number(field(object, "latency", where), where + ".latency", ranges::latency);
  return direction;
}

nlohmann::json direction_to_json(const DirectedLink& link) {
  return {{"bandwidth", link.bandwidth}, {"latency", link.latency}};
}

void add_node_from_json(Topology& topology, const nlohmann::json& value, std::size_t index) {
  const std::string where = fmt::format("nodes[{}]", index);
  require_object(value, where, {"id", "kind", "name", "capacity"});
  if (value.contains("id")) {
    const nlohmann::json& id = value.at("id");
    if (!id.is_number_integer() || id.get<std::int64_t>() != static_cast<std::int64_t>(index))
      fail(where + ".id", fmt::format("is {} but must equal the node's position {} (or be left out)", id.dump(), index));
  }
  std::string name = fmt::format("node{}", index);
  if (value.contains("name")) {
    if (!value.at("name").is_string()) fail(where + ".name", "expected a string");
    name = io::printable(value.at("name").get<std::string>());  // printed by show, simulate
  }
  const nlohmann::json& kind = field(value, "kind", where);
  if (kind == "endpoint") {
    if (value.contains("capacity"))
      fail(where + ".capacity", "only switches have a capacity; remove it or make the node a switch");
    topology.add_endpoint(std::move(name));
  } else if (kind == "switch") {
    const double capacity =
        value.contains("capacity") ? ranged_number(value.at("capacity"), where + ".capacity", ranges::capacity)
                                    : unlimited_capacity;
    topology.add_switch(std::move(name), capacity);
  } else {
    fail(where + ".kind", fmt::format("is {}; expected \"endpoint\" or \"switch\"", kind.dump()));
  }
}

NodeId node_reference(const nlohmann::json& link, const char* key, const std::string& where, int nodes) {
  const nlohmann::json& value = field(link, key, where);
  const std::string path = where + "." + key;
  if (!value.is_number_integer()) fail(path, "expected an integer node id (a position in \"nodes\")");
  const auto id = value.get<std::int64_t>();
  if (id < 0 || id >= nodes) fail(path, fmt::format("node {} does not exist; node ids are 0..{}", id, nodes - 1));
  return static_cast<NodeId>(id);
}

void add_link_from_json(Topology& topology, const nlohmann::json& value, std::size_t index) {
  const std::string where = fmt::format("links[{}]", index);
  require_object(value, where, {"a", "b", "bandwidth", "latency", "a_to_b", "b_to_a"});
  const NodeId a = node_reference(value, "a", where, topology.num_nodes());
  const NodeId b = node_reference(value, "b", where, topology.num_nodes());
  if (a == b) fail(where, fmt::format("joins node {} to itself", a));
  const bool symmetric = value.contains("bandwidth") || value.contains("latency");
  const bool asymmetric = value.contains("a_to_b") || value.contains("b_to_a");
  if (symmetric == asymmetric)
    fail(where, "give either \"bandwidth\" and \"latency\" (both directions) or \"a_to_b\" and \"b_to_a\" objects");
  if (symmetric) {
    nlohmann::json both = value;
    both.erase("a");
    both.erase("b");
    topology.add_link(a, b, direction_from_json(both, where));
  } else {
    topology.add_link(a, b, direction_from_json(field(value, "a_to_b", where), where + ".a_to_b"),
                      direction_from_json(field(value, "b_to_a", where), where + ".b_to_a"));
  }
}

constexpr const char* curve_names[] = {"link_bandwidth", "switch_capacity", "gamma_seconds_per_byte",
                                       "link_bandwidth_factor", "copy_cost_ratio"};

// curves.link_bandwidth, .switch_capacity, .gamma_seconds_per_byte, .link_bandwidth_factor or
// .copy_cost_ratio (const or not).
template <class Curves>
auto& curve_named(Curves& curves, std::string_view name) {
  if (name == "link_bandwidth") return curves.link_bandwidth;
  if (name == "switch_capacity") return curves.switch_capacity;
  if (name == "link_bandwidth_factor") return curves.link_bandwidth_factor;
  if (name == "copy_cost_ratio") return curves.copy_cost_ratio;
  return curves.gamma_seconds_per_byte;
}

// The range of a curve's values: what the curve replaces.
const io::NumberRange& curve_value_range(std::string_view name) {
  if (name == "link_bandwidth") return ranges::bandwidth;
  if (name == "switch_capacity") return ranges::capacity;
  if (name == "link_bandwidth_factor") return ranges::bandwidth_factor;
  if (name == "copy_cost_ratio") return ranges::copy_cost_ratio;
  return ranges::gamma_seconds_per_byte;
}

FootprintCurve curve_from_json(const nlohmann::json& value, const std::string& where, std::string_view name) {
  if (!value.is_array() || value.empty())
    fail(where, "expected a non-empty array of {\"footprint_bytes\": F, \"value\": V} points");
  std::vector<CurvePoint> points;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string point_where = fmt::format("{}[{}]", where, i);
    require_object(value[i], point_where, {"footprint_bytes", "value"});
    points.push_back({ranged_number(field(value[i], "footprint_bytes", point_where), point_where + ".footprint_bytes",
                                    ranges::footprint_bytes),
                      ranged_number(field(value[i], "value", point_where), point_where + ".value", curve_value_range(name))});
  }
  try {
    return FootprintCurve(std::move(points));
  } catch (const std::invalid_argument& error) {
    fail(where, error.what());
  }
}

FootprintCurves curves_from_json(const nlohmann::json& value) {
  require_object(value, "footprint_curves",
                 {"link_bandwidth", "switch_capacity", "gamma_seconds_per_byte", "link_bandwidth_factor", "copy_cost_ratio"});
  FootprintCurves curves;
  for (const char* name : curve_names)
    if (value.contains(name)) curve_named(curves, name) = curve_from_json(value.at(name), fmt::format("footprint_curves.{}", name), name);
  return curves;
}

nlohmann::json curves_to_json(const FootprintCurves& curves) {
  nlohmann::json document = nlohmann::json::object();
  for (const char* name : curve_names) {
    const FootprintCurve& curve = curve_named(curves, name);
    if (curve.empty()) continue;
    nlohmann::json points = nlohmann::json::array();
    for (const CurvePoint& point : curve.points())
      points.push_back({{"footprint_bytes", point.footprint_bytes}, {"value", point.value}});
    document[name] = std::move(points);
  }
  return document;
}

// The cpu_sharing object's shape; Topology::set_cpu_sharing checks the values against the endpoints.
CpuSharing cpu_sharing_from_json(const nlohmann::json& value) {
  require_object(value, "cpu_sharing", {"cpu_of_rank", "written_share", "waiting_rank_cost"});
  CpuSharing sharing;
  const nlohmann::json& cpus = field(value, "cpu_of_rank", "cpu_sharing");
  if (!cpus.is_array()) fail("cpu_sharing.cpu_of_rank", "expected an array with the CPU of each rank, e.g. [0, 1, 0, 1]");
  for (std::size_t rank = 0; rank < cpus.size(); ++rank) {
    if (!cpus[rank].is_number_integer() || cpus[rank].get<std::int64_t>() < 0 || cpus[rank].get<std::int64_t>() > max_topology_nodes)
      fail(fmt::format("cpu_sharing.cpu_of_rank[{}]", rank), fmt::format("is {}; expected a CPU number >= 0", cpus[rank].dump()));
    sharing.cpu_of_rank.push_back(cpus[rank].get<int>());
  }
  for (const char* key : {"written_share", "waiting_rank_cost"}) {
    const nlohmann::json& number = field(value, key, "cpu_sharing");
    const bool share = std::string_view(key) == "written_share";
    (share ? sharing.written_share : sharing.waiting_rank_cost) =
        ranged_number(number, fmt::format("cpu_sharing.{}", key), share ? io::NumberRange{0, 1, "", true} : io::NumberRange{0, 1});
  }
  return sharing;
}

// row.<key>: a type or op name, e.g. "bfloat16" or "max" (`example`).
std::string name_in_row(const nlohmann::json& row, const char* key, const std::string& where, const char* example) {
  const nlohmann::json& value = field(row, key, where);
  if (!value.is_string() || value.get<std::string>().empty())
    fail(fmt::format("{}.{}", where, key),
         fmt::format("is {}; expected a name as ringlab spells it, e.g. \"{}\"", io::printable(value.dump()), example));
  return io::printable(value.get<std::string>());  // printed in warnings
}

// The gamma_by_type_op array's shape and numbers; Topology::set_gamma_by_type_op refuses a
// repeated pair.
std::vector<TypeOpGamma> type_op_gammas_from_json(const nlohmann::json& value) {
  if (!value.is_array() || value.empty())
    fail("gamma_by_type_op", "expected a non-empty array of {\"type\", \"op\", \"in_cache_seconds_per_byte\", "
                             "\"out_of_cache_seconds_per_byte\"} objects");
  std::vector<TypeOpGamma> table;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string where = fmt::format("gamma_by_type_op[{}]", i);
    require_object(value[i], where, {"type", "op", "in_cache_seconds_per_byte", "out_of_cache_seconds_per_byte"});
    const auto cost = [&](const char* key) {
      return ranged_number(field(value[i], key, where), fmt::format("{}.{}", where, key),
                           ranges::type_op_gamma_seconds_per_byte);
    };
    table.push_back({name_in_row(value[i], "type", where, "bfloat16"), name_in_row(value[i], "op", where, "max"),
                     cost("in_cache_seconds_per_byte"), cost("out_of_cache_seconds_per_byte")});
  }
  return table;
}

// The gamma_by_form array's shape and numbers; Topology::set_gamma_by_form refuses a repeated row.
std::vector<FormGamma> form_gammas_from_json(const nlohmann::json& value) {
  if (!value.is_array() || value.empty())
    fail("gamma_by_form", "expected a non-empty array of {\"form\", \"ranks_reducing\", \"in_cache_seconds_per_byte\", "
                          "\"out_of_cache_seconds_per_byte\"} objects");
  std::vector<FormGamma> table;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string where = fmt::format("gamma_by_form[{}]", i);
    require_object(value[i], where, {"form", "ranks_reducing", "in_cache_seconds_per_byte", "out_of_cache_seconds_per_byte"});
    const auto cost = [&](const char* key) {
      return ranged_number(field(value[i], key, where), fmt::format("{}.{}", where, key),
                           ranges::type_op_gamma_seconds_per_byte);
    };
    int ranks = 0;
    try {
      ranks = static_cast<int>(io::check_json_integer(field(value[i], "ranks_reducing", where), where + ".ranks_reducing",
                                                      1, max_topology_nodes, "ranks"));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(fmt::format("topology JSON: {} (the ranks that reduced at once, e.g. 2)", error.what()));
    }
    table.push_back({name_in_row(value[i], "form", where, "in-place"), ranks, cost("in_cache_seconds_per_byte"),
                     cost("out_of_cache_seconds_per_byte")});
  }
  return table;
}

// An optional top-level number within `range`.
std::optional<double> optional_number(const nlohmann::json& document, const char* field, const io::NumberRange& range) {
  if (!document.contains(field)) return std::nullopt;
  return ranged_number(document.at(field), field, range);
}

}  // namespace

nlohmann::json to_json(const Topology& topology) {
  nlohmann::json nodes = nlohmann::json::array();
  for (NodeId id = 0; id < topology.num_nodes(); ++id) {
    const Node& node = topology.node(id);
    nlohmann::json entry = {{"id", id}, {"kind", name_of(node.kind)}, {"name", node.name}};
    if (node.capacity < unlimited_capacity) entry["capacity"] = node.capacity;
    nodes.push_back(std::move(entry));
  }
  nlohmann::json links = nlohmann::json::array();
  for (LinkId link = 0; link < topology.num_links(); ++link) {
    const DirectedLink& forward = topology.directed_link(Topology::forward_of(link));
    const DirectedLink& backward = topology.directed_link(Topology::reverse(Topology::forward_of(link)));
    nlohmann::json entry = {{"a", forward.from}, {"b", forward.to}};
    if (forward.bandwidth == backward.bandwidth && forward.latency == backward.latency) {
      entry["bandwidth"] = forward.bandwidth;
      entry["latency"] = forward.latency;
    } else {
      entry["a_to_b"] = direction_to_json(forward);
      entry["b_to_a"] = direction_to_json(backward);
    }
    links.push_back(std::move(entry));
  }
  nlohmann::json document = {{"schema", topology_schema},
                              {"name", topology.name()},
                              {"endpoints_forward", topology.endpoints_forward()},
                              {"nodes", std::move(nodes)},
                              {"links", std::move(links)}};
  if (topology.gamma_seconds_per_byte()) document["gamma_seconds_per_byte"] = *topology.gamma_seconds_per_byte();
  if (topology.copy_cost_ratio()) document["copy_cost_ratio"] = *topology.copy_cost_ratio();
  if (topology.receive_fragment_bytes()) document["receive_fragment_bytes"] = *topology.receive_fragment_bytes();
  if (!topology.footprint_curves().empty()) document["footprint_curves"] = curves_to_json(topology.footprint_curves());
  if (!topology.gamma_by_type_op().empty()) {
    nlohmann::json table = nlohmann::json::array();
    for (const TypeOpGamma& row : topology.gamma_by_type_op())
      table.push_back({{"type", row.type},
                       {"op", row.op},
                       {"in_cache_seconds_per_byte", row.in_cache_seconds_per_byte},
                       {"out_of_cache_seconds_per_byte", row.out_of_cache_seconds_per_byte}});
    document["gamma_by_type_op"] = std::move(table);
  }
  if (!topology.gamma_by_form().empty()) {
    nlohmann::json table = nlohmann::json::array();
    for (const FormGamma& row : topology.gamma_by_form())
      table.push_back({{"form", row.form},
                       {"ranks_reducing", row.ranks_reducing},
                       {"in_cache_seconds_per_byte", row.in_cache_seconds_per_byte},
                       {"out_of_cache_seconds_per_byte", row.out_of_cache_seconds_per_byte}});
    document["gamma_by_form"] = std::move(table);
  }
  if (const std::optional<CpuSharing>& sharing = topology.cpu_sharing())
    document["cpu_sharing"] = {{"cpu_of_rank", sharing->cpu_of_rank},
                               {"written_share", sharing->written_share},
                               {"waiting_rank_cost", sharing->waiting_rank_cost}};
  return document;
}

void write_topology_json(std::ostream& out, const Topology& topology) {
  const nlohmann::json document = to_json(topology);
  out << "{\"schema\": " << document.at("schema").dump() << ", \"name\": " << document.at("name").dump()
      << ", \"endpoints_forward\": " << document.at("endpoints_forward").dump();
  if (document.contains("gamma_seconds_per_byte"))
    out << ", \"gamma_seconds_per_byte\": " << document.at("gamma_seconds_per_byte").dump();
  if (document.contains("copy_cost_ratio")) out << ", \"copy_cost_ratio\": " << document.at("copy_cost_ratio").dump();
  if (document.contains("receive_fragment_bytes"))
    out << ", \"receive_fragment_bytes\": " << document.at("receive_fragment_bytes").dump();
  out << ",\n";
  if (document.contains("footprint_curves")) {
    out << " \"footprint_curves\": {";
    const nlohmann::json& curves = document.at("footprint_curves");
    bool first = true;
    for (const auto& item : curves.items()) {
      out << (first ? "\n  " : ",\n  ") << nlohmann::json(item.key()).dump() << ": " << item.value().dump();
      first = false;
    }
    out << "\n },\n";
  }
  if (document.contains("cpu_sharing")) out << " \"cpu_sharing\": " << document.at("cpu_sharing").dump() << ",\n";
  for (const char* list : {"gamma_by_type_op", "gamma_by_form", "nodes", "links"}) {
    if (!document.contains(list)) continue;
    out << " \"" << list << "\": [";
    const nlohmann::json& entries = document.at(list);
    for (std::size_t i = 0; i < entries.size(); ++i) out << (i == 0 ? "\n  " : ",\n  ") << entries[i].dump();
    out << (entries.empty() ? "]" : "\n ]") << (list == std::string_view("links") ? "\n" : ",\n");
  }
  out << "}\n";
}

Topology topology_from_json(const nlohmann::json& document) {
  require_object(document, "(top level)",
                 {"schema", "name", "endpoints_forward", "gamma_seconds_per_byte", "copy_cost_ratio", "receive_fragment_bytes",
                  "footprint_curves", "cpu_sharing", "gamma_by_type_op", "gamma_by_form", "nodes", "links", "calibration"});
  const nlohmann::json& schema = field(document, "schema", "(top level)");
  if (schema != topology_schema)
    fail("schema", fmt::format("is {}; this build reads \"{}\"", schema.dump(), topology_schema));
  std::string name = "custom";
  if (document.contains("name")) {
    if (!document.at("name").is_string()) fail("name", "expected a string");
    name = io::printable(document.at("name").get<std::string>());  // escaped: it is printed
  }
  bool endpoints_forward = false;
  if (document.contains("endpoints_forward")) {
    if (!document.at("endpoints_forward").is_boolean()) fail("endpoints_forward", "expected true or false");
    endpoints_forward = document.at("endpoints_forward").get<bool>();
  }
  // "calibration" is the record `ringlab calibrate` keeps beside the model (measurements, fits,
  // residuals); the topology does not depend on it, so only its shape is checked.
  if (document.contains("calibration") && !document.at("calibration").is_object())
    fail("calibration", "expected a JSON object (the record ringlab calibrate writes)");
  const nlohmann::json& nodes = field(document, "nodes", "(top level)");
  const nlohmann::json& links = field(document, "links", "(top level)");
  if (!nodes.is_array()) fail("nodes", "expected an array of node objects");
  if (!links.is_array()) fail("links", "expected an array of link objects");
  if (static_cast<std::int64_t>(nodes.size()) > max_topology_nodes)
    fail("nodes", fmt::format("has {} entries; the limit is {}", nodes.size(), max_topology_nodes));
  if (static_cast<std::int64_t>(links.size()) > max_topology_links)
    fail("links", fmt::format("has {} entries; the limit is {}", links.size(), max_topology_links));
  Topology topology(std::move(name));
  topology.set_endpoints_forward(endpoints_forward);
  if (const std::optional<double> gamma = optional_number(document, "gamma_seconds_per_byte", ranges::gamma_seconds_per_byte))
    topology.set_gamma_seconds_per_byte(*gamma);
  if (const std::optional<double> ratio = optional_number(document, "copy_cost_ratio", ranges::copy_cost_ratio))
    topology.set_copy_cost_ratio(*ratio);
  if (document.contains("receive_fragment_bytes")) {
    try {
      topology.set_receive_fragment_bytes(io::check_json_integer(document.at("receive_fragment_bytes"),
                                                                 "receive_fragment_bytes", 1,
                                                                 ranges::max_receive_fragment_bytes, "bytes"));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(fmt::format("topology JSON: {} (e.g. 131072, the transport's slot)", error.what()));
    }
  }
  topology.reserve(static_cast<std::int64_t>(nodes.size()), static_cast<std::int64_t>(links.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) add_node_from_json(topology, nodes[i], i);
  for (std::size_t i = 0; i < links.size(); ++i) add_link_from_json(topology, links[i], i);
  if (document.contains("footprint_curves")) {
    FootprintCurves curves = curves_from_json(document.at("footprint_curves"));
    try {
      topology.set_footprint_curves(std::move(curves));
    } catch (const std::invalid_argument& error) {
      fail("footprint_curves", error.what());
    }
  }
  if (document.contains("gamma_by_type_op")) {
    std::vector<TypeOpGamma> table = type_op_gammas_from_json(document.at("gamma_by_type_op"));
    try {
      topology.set_gamma_by_type_op(std::move(table));
    } catch (const std::invalid_argument& error) {  // its message names the row
      throw std::invalid_argument(fmt::format("topology JSON: {}", error.what()));
    }
  }
  if (document.contains("gamma_by_form")) {
    std::vector<FormGamma> table = form_gammas_from_json(document.at("gamma_by_form"));
    try {
      topology.set_gamma_by_form(std::move(table));
    } catch (const std::invalid_argument& error) {  // its message names the row
      throw std::invalid_argument(fmt::format("topology JSON: {}", error.what()));
    }
  }
  if (document.contains("cpu_sharing")) {
    CpuSharing sharing = cpu_sharing_from_json(document.at("cpu_sharing"));
    try {
      topology.set_cpu_sharing(std::move(sharing));
    } catch (const std::invalid_argument& error) {  // its message names the field
      throw std::invalid_argument(fmt::format("topology JSON: {}", error.what()));
    }
  }
  try {
    topology.validate();
  } catch (const std::invalid_argument& error) {
    fail(topology.num_endpoints() == 0 ? "nodes" : "links", error.what());
  }
  return topology;
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  return io::read_json_input(path, what);
}

Topology read_topology_file(const std::string& path) {
  const nlohmann::json document = read_json_file(path, "topology file");
  try {
    return topology_from_json(document);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("{}: {}", io::printable(path), error.what()));
  }
}

Topology load_topology(const std::string& preset_or_file) {
  // Anything at that path (a directory, a FIFO, a device too) is read as a file, so that it is
  // refused by its kind rather than parsed as a preset.
  std::error_code error_code;
  const bool exists = std::filesystem::status(preset_or_file, error_code).type() != std::filesystem::file_type::not_found;
  if ((exists && !error_code) || preset_or_file.find('/') != std::string::npos || preset_or_file.ends_with(".json"))
    return read_topology_file(preset_or_file);
  return make_preset_topology(preset_or_file);
}

}  // namespace ringlab
