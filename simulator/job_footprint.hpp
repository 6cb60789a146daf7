// The memory one collective call touches on all ranks together, which decides whether its copies
// and reductions run from cache or from DRAM (a topology's footprint curves, footprint_curve.hpp;
// docs/simulator.md, "Footprint"). Steps:
//   1. per rank: the input and the output buffer (count x element bytes each; one buffer in
//      place, where the result overwrites the input) plus the executor's scratch, bounded by the
//      most bytes the rank receives in one step;
//   2. summed over the ranks (a circulant schedule: rank 0's template, times N).
// The calibration's measurements are placed on the curves by the same rule (footprint_curve.hpp:
// ping_pong_footprint_bytes and the others).
#pragma once

#include <cstdint>

#include "collectives/datatype.hpp"
#include "collectives/placement.hpp"
#include "collectives/schedule.hpp"

namespace ringlab::simulator {

using ringlab::Placement;  // placement.hpp: the bench's two columns

// Bytes; the schedule is trusted to be in range (check_schedule first).
double job_footprint_bytes(const Schedule& schedule, std::int64_t count, DataType type,
                           Placement placement = Placement::out_of_place);

}  // namespace ringlab::simulator
