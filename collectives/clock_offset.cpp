#include "collectives/clock_offset.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "collectives/backend_registry.hpp"

namespace ringlab {

namespace {

// Above every step tag (< 30000), beside memcpy_release_tag 31000 and placement_tag 31001,
// below nccl's bootstrap tag 31500 and the executor's agreement tags 32000..32002.
constexpr int ping_tag = 31002;
constexpr int pong_tag = 31003;
constexpr int offset_tag = 31004;

void send_value(Communicator& comm, double value, int peer, int tag, Clock::time_point deadline, const char* what) {
  std::byte bytes[sizeof(double)];
  std::memcpy(bytes, &value, sizeof value);
  comm.post_send(bytes, peer, tag)->wait(deadline, what);
}

double receive_value(Communicator& comm, int peer, int tag, Clock::time_point deadline, const char* what) {
  std::byte bytes[sizeof(double)];
  comm.post_recv(bytes, peer, tag)->wait(deadline, what);
  double value = 0;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

}  // namespace

double clock_seconds(Clock::time_point when) {
  return std::chrono::duration<double>(when.time_since_epoch()).count();
}

double offset_from_round_trips(const std::vector<RoundTrip>& round_trips) {
  double fastest = std::numeric_limits<double>::infinity();
  double offset = 0;
  for (const RoundTrip& trip : round_trips) {
    const double duration = trip.received - trip.sent;
    if (duration < fastest) {
      fastest = duration;
      offset = trip.peer - (trip.sent + trip.received) / 2.0;
    }
  }
  return offset;
}

bool ranks_share_one_clock(const Communicator& comm) {
  const BackendInfo* backend = backend_named(comm.backend_name());
  return backend != nullptr && backend->ranks_are_threads();
}

double estimate_clock_offset(Communicator& comm, Clock::time_point deadline, int round_trips) {
  if (ranks_share_one_clock(comm) || comm.size() == 1) return 0.0;
  if (comm.rank() != 0) {
    for (int i = 0; i < round_trips; ++i) {
      receive_value(comm, 0, ping_tag, deadline, "clock offset: ping from rank 0");
      send_value(comm, clock_seconds(Clock::now()), 0, pong_tag, deadline, "clock offset: reply to rank 0");
    }
    return receive_value(comm, 0, offset_tag, deadline, "clock offset: the estimate from rank 0");
  }
  for (int peer = 1; peer < comm.size(); ++peer) {
    std::vector<RoundTrip> trips;
    for (int i = 0; i < round_trips; ++i) {
      RoundTrip trip;
      trip.sent = clock_seconds(Clock::now());
      send_value(comm, 0.0, peer, ping_tag, deadline, "clock offset: ping");
      trip.peer = receive_value(comm, peer, pong_tag, deadline, "clock offset: reply");
      trip.received = clock_seconds(Clock::now());
      trips.push_back(trip);
    }
    send_value(comm, offset_from_round_trips(trips), peer, offset_tag, deadline, "clock offset: the estimate");
  }
  return 0.0;
}

}  // namespace ringlab
