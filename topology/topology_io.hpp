// The ringlab.topology/1 JSON form of a Topology (docs/topology-format.md) and loading a
// topology from a preset string or a file.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "topology/topology.hpp"

namespace ringlab {

inline constexpr const char* topology_schema = "ringlab.topology/1";

nlohmann::json to_json(const Topology& topology);
// The same document laid out one node and one link per line, "schema" first.
void write_topology_json(std::ostream& out, const Topology& topology);
// Checks the shape, the values and the limits before building anything, then validate()s the
// result. Throws std::invalid_argument starting "topology JSON: <path>: " (e.g. links[3].bandwidth).
Topology topology_from_json(const nlohmann::json& document);
// As above, the message prefixed with the file name; refuses files over 512 MiB unread.
Topology read_topology_file(const std::string& path);
// The JSON document in a file; std::invalid_argument "cannot read <what> '<path>': ...", "<what>
// '<path>' has N bytes; the limit is ..." (over 512 MiB, unread) or "... is not valid JSON: ...".
nlohmann::json read_json_file(const std::string& path, const std::string& what);
// An existing file is read as JSON; anything else is parsed as a preset (presets.hpp).
Topology load_topology(const std::string& preset_or_file);

}  // namespace ringlab
