// Rank orbits for the flow-level model (issue 33): when turning the leading digit of a topology's
// rank symmetry (adding stride = N / radix to every rank) maps the network, the schedule and every
// route onto themselves, every rank runs as rank r % stride does, turned, at the same times. The
// model then simulates the representatives 0 .. stride-1 alone: a flow stands for its orbit of
// radix flows, a resource for its orbit of resources, and a crossing weighs radix / (the
// resource's orbit size) in the max-min solve. The result equals the full simulation's (up to
// rounding) because the max-min fair rates of a problem that an automorphism maps onto itself are
// mapped onto themselves too. Conditions, each checked (rank_orbits gives nothing when one fails):
//   - the declared rank symmetry holds (topology/symmetry.hpp) and its leading digit turns, radix > 1;
//   - the schedule is circulant on all the endpoints with equal chunks (count a multiple of
//     nchunks), and no op's chunk range longer than one chunk wraps for any rank (the executor
//     cuts a wrapping range in two pieces, so ranks of an orbit would cut it differently);
//   - the route of every pair a representative receives on, turned, is the route the router gives
//     the turned pair: so where it is the only one of least (hops, latency) (Router::costs_from),
//     and where it ties with others the router's choice is compared turn by turn (a torus row's
//     end fails: the router picks among tied routes by node id);
//   - no CPU sharing and no copy cost (both couple ranks through their CPUs and scratch).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "collectives/schedule.hpp"
#include "simulator/flow_routes.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

struct RankOrbits {
  int stride = 1;  // the representatives are ranks 0 .. stride-1; rank r runs as r % stride
  int size = 1;    // ranks in an orbit (the leading radix)
  std::vector<std::int32_t> canonical;  // per resource: the first resource of its orbit
  std::vector<double> weight;           // per resource: size / its orbit's size
};

std::optional<RankOrbits> rank_orbits(const FlowRoutes& routes, const Schedule& schedule, std::int64_t count);

}  // namespace ringlab::simulator
