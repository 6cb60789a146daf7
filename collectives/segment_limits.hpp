// The smallest segment a user may ask for: `--segment-bytes` of bench, allreduce and simulate, and
// `config.segment_bytes` of a report read by `ringlab compare`. 0 (whole transfers) is always
// allowed. Smaller segments only multiply the messages: a 4 MiB transfer in 1-byte segments is 4
// million messages, which runs for minutes while never missing a --timeout (the job keeps making
// progress). The executor itself takes any size (ExecuteOptions::segment_bytes; tests use small
// ones).
#pragma once

#include <cstdint>

namespace ringlab {

inline constexpr std::int64_t min_segment_bytes = 4096;

}  // namespace ringlab
