// A common clock for the ranks' call-entry times (the report's rank_skew_us): each rank's steady
// clock minus rank 0's, estimated once per run from a short ping-pong with rank 0, as NTP does:
// the peer's reading against the midpoint of rank 0's send and receive, taken from the round trip
// that was fastest (its midpoint is the least uncertain, within half that round trip).
#pragma once

#include <vector>

#include "collectives/communicator.hpp"

namespace ringlab {

// Seconds on this rank's steady clock.
double clock_seconds(Clock::time_point when);

// One ping-pong of rank 0 with a peer: rank 0's clock when it sent and when the reply came back,
// and the peer's clock when it replied (seconds).
struct RoundTrip {
  double sent = 0;
  double peer = 0;
  double received = 0;
};

// The peer's clock minus rank 0's from the fastest round trip; 0 for none.
double offset_from_round_trips(const std::vector<RoundTrip>& round_trips);

// True where every rank reads the same clock (the threads and cuda-peer backends: one process).
bool ranks_share_one_clock(const Communicator& comm);

// Collective: this rank's clock minus rank 0's (0 on rank 0, and where ranks share one clock).
// Subtract it from this rank's clock_seconds to get rank 0's time. Tags 31002..31004.
double estimate_clock_offset(Communicator& comm, Clock::time_point deadline, int round_trips = 16);

}  // namespace ringlab
