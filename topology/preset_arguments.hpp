// Internal to the presets: a parsed preset string with typed, checked access to its parameters.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "topology/presets.hpp"
#include "topology/topology.hpp"

namespace ringlab::presets {

class PresetArguments {
 public:
  // Checks that every key is one of info's parameters.
  PresetArguments(const PresetInfo& info, std::string text, std::string size, std::map<std::string, std::string> values);

  const std::string& text() const { return text_; }
  // The size after the colon: a count in [min, max]; rows and columns for "RxC".
  std::int64_t size(std::int64_t min, std::int64_t max) const;
  std::pair<std::int64_t, std::int64_t> grid_size(std::int64_t max_each) const;
  void require_no_size() const;
  // A parameter's value or its default.
  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  bool has(std::string_view key) const { return values_.count(std::string(key)) != 0; }
  double bandwidth(std::string_view key) const;  // bytes/s, finite and > 0
  double latency(std::string_view key) const;    // seconds, finite and >= 0
  // A parameter whose value is one of a list of names ("on", "off"; a NIC's name).
  std::string word(std::string_view key, const std::vector<std::string_view>& allowed) const;

 private:
  std::string raw(std::string_view key) const;
  double number(std::string_view key, bool* ok) const;  // finite, else *ok is false
  [[noreturn]] void fail(const std::string& what) const;

  const PresetInfo& info_;
  std::string text_;
  std::string size_;
  std::map<std::string, std::string> values_;
};

// The NIC link of a multi-node preset: the named nic's bandwidth and latency (preset_nics.cpp), or
// nic_bw and nic_lat where given.
LinkDirection nic_link(const PresetArguments& arguments);

Topology fully_connected(const PresetArguments& arguments);
Topology single_switch(const PresetArguments& arguments);
Topology ring(const PresetArguments& arguments);
Topology torus2d(const PresetArguments& arguments);
Topology pcie_tree(const PresetArguments& arguments);
Topology nvswitch_cluster(const PresetArguments& arguments);
Topology host_shm(const PresetArguments& arguments);
Topology dragonfly(const PresetArguments& arguments);
Topology nvswitch_system(const PresetArguments& arguments);  // dgx-a100, dgx-h100, hgx-h100
Topology dgx1_v100(const PresetArguments& arguments);
Topology pcie_box(const PresetArguments& arguments);

}  // namespace ringlab::presets
