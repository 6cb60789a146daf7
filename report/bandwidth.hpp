// nccl-tests' two bandwidths of an all-reduce: algbw, the message over the time, and busbw, the
// bandwidth each link would need in an ideal ring, which is comparable across rank counts.
#pragma once

#include <cstdint>

namespace ringlab::report {

// algbw = bytes / time; busbw = algbw * 2(N-1)/N (GB/s, 1 GB = 1e9 B). Zero time: 0; one rank: 0.
double algbw_gbps(std::int64_t bytes, double seconds);
double busbw_gbps(double algbw, int nranks);

}  // namespace ringlab::report
