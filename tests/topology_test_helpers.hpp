// Helpers the topology tests share.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "topology/presets.hpp"
#include "topology/routing.hpp"
#include "topology/topology.hpp"

namespace ringlab::test_support {

// The node names along a route, source first.
inline std::vector<std::string> path_names(const Topology& topology, const Route& route) {
  std::vector<std::string> names{topology.node(route.source).name};
  for (DirectedLinkId link : route.links) names.push_back(topology.node(topology.directed_link(link).to).name);
  return names;
}

// The message of the std::invalid_argument the action throws, "(no error)" when none.
inline std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no error)";
}

// Each (preset, text): building the preset throws std::invalid_argument whose message has the text.
inline void expect_preset_errors(const std::vector<std::pair<const char*, const char*>>& cases) {
  for (const auto& [preset, expected] : cases) {
    const char* text = preset;
    const std::string message = error_of([text] { make_preset_topology(text); });
    EXPECT_NE(message.find(expected), std::string::npos) << preset << " gave: " << message;
  }
}

}  // namespace ringlab::test_support
