// Where a collective call leaves its result: in an output buffer of its own, or over its input
// (nccl-tests' two columns). One spelling for the bench's tables and reports and the simulator,
// which prices each placement at the memory it touches and reads the spelling back from reports.
#pragma once

#include <optional>
#include <string_view>

namespace ringlab {

enum class Placement { out_of_place, in_place };

constexpr Placement placement_of(bool in_place) { return in_place ? Placement::in_place : Placement::out_of_place; }

// "out-of-place" / "in-place", as reports and tables write it.
constexpr std::string_view name_of(Placement placement) {
  return placement == Placement::in_place ? "in-place" : "out-of-place";
}

// The placement a report spells `name` (name_of's inverse); nothing for any other text.
constexpr std::optional<Placement> placement_named(std::string_view name) {
  for (const Placement placement : {Placement::out_of_place, Placement::in_place})
    if (name == name_of(placement)) return placement;
  return std::nullopt;
}

}  // namespace ringlab
