// The bytes a schedule puts on the links of a topology, from its sends and the routes alone (no
// timing, so the same for every model): every send of b bytes adds b to each directed link of
// its route (FlowRoutes, the flow-level model's routes). Limited switches are not links and are
// not counted. Bine's "global-link traffic" is this load on the busiest link.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "collectives/datatype.hpp"
#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

struct LinkTraffic {
  double total_link_bytes = 0;    // sum over sends of bytes x directed links crossed
  double busiest_link_bytes = 0;  // the most bytes any one directed link carried
  DirectedLinkId busiest_link = -1;  // -1 when no link carried a byte
};

class FlowRoutes;

// Counts schedules on one topology, keeping the routes it looked up between calls (a sweep asks
// for every size). Keeps a reference to the topology, which must outlive it. Not thread-safe.
class LinkTrafficCounter {
 public:
  explicit LinkTrafficCounter(const Topology& topology);
  ~LinkTrafficCounter();
  // One call of `schedule` on `count` elements of `type`; rank r is endpoint r. Throws
  // std::invalid_argument when the schedule has more ranks than the topology has endpoints.
  LinkTraffic count(const Schedule& schedule, std::int64_t count, DataType type);

 private:
  const Topology& topology_;
  std::unique_ptr<FlowRoutes> routes_;
  std::vector<double> bytes_on_;  // [directed link]
};

// The same for one schedule.
LinkTraffic link_traffic(const Schedule& schedule, const Topology& topology, std::int64_t count, DataType type);

}  // namespace ringlab::simulator
