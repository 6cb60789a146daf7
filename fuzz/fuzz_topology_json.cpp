// Fuzz target: the ringlab.topology/1 reader (topology_from_json).
// Steps: parse the input as JSON (not JSON: nothing to do); read it as a topology, where
// std::invalid_argument is the reader's answer to bad input; a topology that was accepted must
// survive to_json -> topology_from_json unchanged, else the reader and writer disagree (a finding).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "topology/topology_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json document = nlohmann::json::parse(data, data + size, nullptr, false);
  if (document.is_discarded()) return 0;
  ringlab::Topology topology;
  try {
    topology = ringlab::topology_from_json(document);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const nlohmann::json written = ringlab::to_json(topology);
  if (ringlab::to_json(ringlab::topology_from_json(written)) != written) std::abort();
  return 0;
}
