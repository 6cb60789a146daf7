// The physical ranges a topology's numbers must lie in when they come from outside (a
// ringlab.topology/1 file or a preset string), so that no prediction made from them overflows to
// inf or underflows to 0. Documented in docs/topology-format.md ("Ranges").
#pragma once

#include <cstdint>

#include "io/checked_number.hpp"

namespace ringlab::ranges {

// 1 kB/s (a slow serial line) to 1 PB/s (far above any memory bus).
inline constexpr io::NumberRange bandwidth{1e3, 1e15, "B/s"};
// A switch's shared capacity: as a bandwidth.
inline constexpr io::NumberRange capacity = bandwidth;
// 0 to 10 s per message.
inline constexpr io::NumberRange latency{0, 10, "s"};
// Reducing a byte: 0 to 1 ms (1 kB/s).
inline constexpr io::NumberRange gamma_seconds_per_byte{0, 1e-3, "s/B"};
// One (type, op)'s measured reduction cost (gamma_by_type_op): as gamma, but > 0, since the
// others are priced relative to the float32/sum row's.
inline constexpr io::NumberRange type_op_gamma_seconds_per_byte{0, 1e-3, "s/B", true};
// Copying a byte over reducing one.
inline constexpr io::NumberRange copy_cost_ratio{0, 100, ""};
// A factor on each link's own bandwidth (footprint_curves.link_bandwidth_factor).
inline constexpr io::NumberRange bandwidth_factor{1e-3, 1e3, ""};
// A footprint curve's x: 1 B to 1 EB.
inline constexpr io::NumberRange footprint_bytes{1, 1e18, "B"};
// The transport's receive fragment: 1 B to 1 TiB.
inline constexpr std::int64_t max_receive_fragment_bytes = std::int64_t{1} << 40;

}  // namespace ringlab::ranges
