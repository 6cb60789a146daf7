#include "simulator/link_traffic.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "simulator/flow_routes.hpp"

namespace ringlab::simulator {

LinkTrafficCounter::LinkTrafficCounter(const Topology& topology)
    : topology_(topology), routes_(std::make_unique<FlowRoutes>(topology)) {}

LinkTrafficCounter::~LinkTrafficCounter() = default;

LinkTraffic LinkTrafficCounter::count(const Schedule& schedule, std::int64_t count, DataType type) {
  if (schedule.nranks > topology_.num_endpoints())
    throw std::invalid_argument(fmt::format("link traffic: the schedule has {} ranks but topology '{}' has {} endpoints",
                                            schedule.nranks, topology_.name(), topology_.num_endpoints()));
  bytes_on_.assign(static_cast<std::size_t>(topology_.num_directed_links()), 0.0);
  const auto element_bytes = static_cast<double>(element_size(type));
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    const RankProgram& program = schedule.programs[schedule.circulant ? 0 : static_cast<std::size_t>(rank)];
    for (const Step& step : program.steps)
      for (const Op& written : step) {
        if (written.kind != OpKind::send) continue;
        const Op op = schedule.resolve(written, rank);
        const double bytes = static_cast<double>(element_count(op.chunks, count, schedule.nchunks)) * element_bytes;
        if (bytes == 0 || op.peer == rank) continue;
        for (const std::int32_t resource : routes_->resources(routes_->between(rank, op.peer)))
          if (!routes_->is_switch(resource)) bytes_on_[static_cast<std::size_t>(resource)] += bytes;
      }
  }
  routes_->release_cache();
  LinkTraffic traffic;
  for (std::size_t link = 0; link < bytes_on_.size(); ++link) {
    traffic.total_link_bytes += bytes_on_[link];
    if (bytes_on_[link] > traffic.busiest_link_bytes) {
      traffic.busiest_link_bytes = bytes_on_[link];
      traffic.busiest_link = static_cast<DirectedLinkId>(link);
    }
  }
  return traffic;
}

LinkTraffic link_traffic(const Schedule& schedule, const Topology& topology, std::int64_t count, DataType type) {
  return LinkTrafficCounter(topology).count(schedule, count, type);
}

}  // namespace ringlab::simulator
