// How much work a flow-level prediction is, counted before it runs: the flow-level model starts a
// flow for every segment of every send of every rank, so its time grows with ranks x steps x
// segments (a ring all-reduce on N ranks: 2(N-1) steps of N sends, 5e7 flows at N = 5000, 15 s
// here; 8e10 at N = 200000). `ringlab simulate` refuses a sweep whose flows exceed a limit, naming
// the estimate, the limit and what to change, instead of running for hours.
#pragma once

#include <cstdint>
#include <string>

#include "collectives/datatype.hpp"
#include "collectives/schedule.hpp"

namespace ringlab::simulator {

// Flows (segments sent) of one flow-level prediction of `schedule` on `count` elements of `type`
// cut into segments of at most `segment_bytes` (0: whole transfers). A double: no overflow.
double flow_level_flows(const Schedule& schedule, std::int64_t count, DataType type, std::int64_t segment_bytes);

// The most flows one `ringlab simulate` run may start in all (seconds to minutes of work).
inline constexpr double max_simulated_flows = 2e8;

}  // namespace ringlab::simulator
