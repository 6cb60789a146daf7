// What both models need to walk a schedule: its ops per rank and step, and the checks that
// refuse a schedule the topology cannot run.
#pragma once

#include <cstdint>
#include <span>

#include "schedule.hpp"
#include "topology.hpp"

namespace ringlab::simulator {

// The ops of one rank in one step, as written in the schedule (a circulant template's ops are
// relative; Schedule::resolve makes them absolute). Empty past the rank's last step.
std::span<const Op> step_ops(const Schedule& schedule, int rank, int step);

// Throws std::invalid_argument, naming the algorithm, the rank (or template), the step and the op,
// when count is negative, the schedule has more ranks than the topology has endpoints, its header
// is malformed, or an op names a missing peer, itself, or a chunk range that does not exist.
// Whether sends and receives match is the verifier's job.
void check_schedule(const Schedule& schedule, const Topology& topology, std::int64_t count);

}  // namespace ringlab::simulator
