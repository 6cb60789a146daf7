// The shared-memory transport in one process: two ranks as threads over channels in ordinary
// memory (the mpi backend puts the same channels in POSIX shared memory), and the element
// coverage the executor uses for out-of-place calls.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "collectives/backends/shm_channel.hpp"
#include "collectives/backends/shm_transport.hpp"
#include "collectives/element_coverage.hpp"

namespace ringlab {
namespace {

using namespace std::chrono_literals;

Clock::time_point deadline_in(Clock::duration duration) { return Clock::now() + duration; }

TEST(ElementCoverage, AddsMergesAndFindsGaps) {
  ElementCoverage coverage;
  EXPECT_FALSE(coverage.touches(0, 10));
  EXPECT_TRUE(coverage.covers(5, 5));  // empty range
  coverage.add(10, 20);
  coverage.add(30, 40);
  EXPECT_TRUE(coverage.covers(10, 20));
  EXPECT_FALSE(coverage.covers(10, 21));
  EXPECT_TRUE(coverage.touches(19, 25));
  EXPECT_FALSE(coverage.touches(20, 30));
  const auto gaps = coverage.gaps(0, 50);
  ASSERT_EQ(gaps.size(), 3U);
  EXPECT_EQ(gaps[0].first, 0);
  EXPECT_EQ(gaps[0].last, 10);
  EXPECT_EQ(gaps[1].first, 20);
  EXPECT_EQ(gaps[1].last, 30);
  EXPECT_EQ(gaps[2].first, 40);
  EXPECT_EQ(gaps[2].last, 50);
  EXPECT_EQ(coverage.gaps(12, 18).size(), 0U);
  coverage.add(20, 30);  // adjacent on both sides: one range remains
  EXPECT_TRUE(coverage.covers(10, 40));
  coverage.add(5, 45);
  EXPECT_TRUE(coverage.covers(5, 45));
  EXPECT_FALSE(coverage.touches(0, 5));
  EXPECT_EQ(coverage.gaps(0, 50).size(), 2U);
}

// Two transports wired to each other through two channels.
class ShmPair {
 public:
  explicit ShmPair(std::size_t slots = 4, std::size_t slot_bytes = 256)
      : bytes_(ShmChannel::footprint(slots, slot_bytes)),
        memory_(static_cast<std::byte*>(std::aligned_alloc(ShmChannel::alignment, 2 * bytes_))) {
    std::memset(memory_.get(), 0, 2 * bytes_);
    for (int side = 0; side < 2; ++side) {
      // channel c carries messages from rank c to rank 1 - c; each side has its own view of it
      for (int c = 0; c < 2; ++c) views_[side][c] = std::make_unique<ShmChannel>(memory_.get() + c * bytes_, slots, slot_bytes);
    }
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<ShmChannel*> inbound(2, nullptr);
      std::vector<ShmChannel*> outbound(2, nullptr);
      inbound[1 - rank] = views_[rank][1 - rank].get();
      outbound[1 - rank] = views_[rank][rank].get();
      transports_[rank] = std::make_unique<ShmTransport>(rank, inbound, outbound, "test");
    }
  }
  ShmTransport& rank(int r) { return *transports_[r]; }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::size_t bytes_;
  std::unique_ptr<std::byte, Free> memory_;
  std::unique_ptr<ShmChannel> views_[2][2];
  std::unique_ptr<ShmTransport> transports_[2];
};

std::vector<std::byte> shm_pattern(std::size_t bytes, int seed) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 13 + static_cast<std::size_t>(seed)) & 0xff);
  return data;
}

TEST(ShmTransport, MessagesOfEverySizeArriveInOrder) {
  ShmPair pair;
  const std::size_t sizes[] = {0, 1, 255, 256, 257, 1024, 5000};
  std::thread sender([&] {
    std::vector<std::vector<std::byte>> outgoing;
    std::vector<RequestPtr> requests;
    for (std::size_t i = 0; i < std::size(sizes); ++i) outgoing.push_back(shm_pattern(sizes[i], static_cast<int>(i)));
    for (std::size_t i = 0; i < std::size(sizes); ++i) requests.push_back(pair.rank(0).post_send(outgoing[i], 1, 7));
    for (auto& request : requests) request->wait(deadline_in(30s), "send");
  });
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    std::vector<std::byte> incoming(sizes[i]);
    pair.rank(1).post_recv(incoming, 0, 7)->wait(deadline_in(30s), "receive");
    EXPECT_EQ(incoming, shm_pattern(sizes[i], static_cast<int>(i))) << "message " << i;
  }
  sender.join();
}

TEST(ShmTransport, BuffersAMessageThatBlocksAnotherTag) {
  ShmPair pair;
  std::thread sender([&] {
    const auto first = shm_pattern(3000, 1);
    const auto second = shm_pattern(100, 2);
    RequestPtr a = pair.rank(0).post_send(first, 1, 1);
    RequestPtr b = pair.rank(0).post_send(second, 1, 2);
    a->wait(deadline_in(30s), "send 1");
    b->wait(deadline_in(30s), "send 2");
  });
  std::vector<std::byte> second(100);
  std::vector<std::byte> first(3000);
  pair.rank(1).post_recv(second, 0, 2)->wait(deadline_in(30s), "receive 2");
  pair.rank(1).post_recv(first, 0, 1)->wait(deadline_in(30s), "receive 1");
  EXPECT_EQ(second, shm_pattern(100, 2));
  EXPECT_EQ(first, shm_pattern(3000, 1));
  sender.join();
}

TEST(ShmTransport, ReducesAsItReceives) {
  ShmPair pair;
  const std::size_t count = 1001;
  std::vector<double> outgoing(count);
  std::iota(outgoing.begin(), outgoing.end(), 1.0);
  std::vector<double> base(count, 0.5);
  std::vector<double> target(count, -1.0);
  std::thread sender([&] { pair.rank(0).post_send(std::as_bytes(std::span(outgoing)), 1, 3)->wait(deadline_in(30s), "send"); });
  pair.rank(1)
      .post_recv_reduce(std::as_writable_bytes(std::span(target)), reinterpret_cast<const std::byte*>(base.data()), 0,
                        3, DataType::float64, ReduceOp::sum)
      ->wait(deadline_in(30s), "reducing receive");
  sender.join();
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(target[i], outgoing[i] + 0.5) << "element " << i;
}

TEST(ShmTransport, SizeMismatchFailsTheReceiveAndTheChannelRecovers) {
  ShmPair pair;
  std::thread sender([&] {
    const auto big = shm_pattern(2000, 4);
    const auto next = shm_pattern(10, 5);
    pair.rank(0).post_send(big, 1, 4)->wait(deadline_in(30s), "send");
    pair.rank(0).post_send(next, 1, 5)->wait(deadline_in(30s), "send");
  });
  std::vector<std::byte> small(100);
  RequestPtr recv = pair.rank(1).post_recv(small, 0, 4);
  try {
    recv->wait(deadline_in(30s), "receive");
    ADD_FAILURE() << "expected CommunicationError";
  } catch (const CommunicationError& error) {
    EXPECT_STREQ(error.what(), "test: rank 1 posted a receive of 100 bytes (tag 4) from rank 0, but rank 0 sent 2000 bytes");
  }
  EXPECT_THROW(recv->test(), CommunicationError);
  std::vector<std::byte> next(10);
  pair.rank(1).post_recv(next, 0, 5)->wait(deadline_in(30s), "receive after mismatch");
  EXPECT_EQ(next, shm_pattern(10, 5));
  sender.join();
}

TEST(ShmTransport, TimesOutNamingPeerAndTagThenCancels) {
  ShmPair pair;
  std::vector<std::byte> buffer(8);
  {
    RequestPtr lonely = pair.rank(1).post_recv(buffer, 0, 9);
    try {
      lonely->wait(deadline_in(50ms), "lonely receive");
      ADD_FAILURE() << "expected TimeoutError";
    } catch (const TimeoutError& error) {
      EXPECT_STREQ(error.what(), "test: rank 1: lonely receive timed out: receive of 8 bytes from rank 0 (tag 9) over "
                                 "shared memory");
    }
  }
  // The cancelled receive does not take the next message with that tag.
  const auto message = shm_pattern(8, 9);
  RequestPtr send = pair.rank(0).post_send(message, 1, 9);
  pair.rank(1).post_recv(buffer, 0, 9)->wait(deadline_in(30s), "receive after cancel");
  send->wait(deadline_in(30s), "send");
  EXPECT_EQ(buffer, message);
}

TEST(ShmTransport, ASendDestroyedMidMessageStillDeliversAllOfIt) {
  ShmPair pair(2, 64);  // 128 bytes of slots: a 1000-byte message cannot fit at once
  const auto message = shm_pattern(1000, 6);
  {
    auto outgoing = message;
    RequestPtr send = pair.rank(0).post_send(outgoing, 1, 6);
    EXPECT_FALSE(send->test());
  }  // the request and its buffer are gone; the transport kept the rest
  std::vector<std::byte> incoming(1000);
  RequestPtr recv = pair.rank(1).post_recv(incoming, 0, 6);
  const auto deadline = deadline_in(30s);
  while (!recv->test() && Clock::now() < deadline) pair.rank(0).progress();
  EXPECT_EQ(incoming, message);
}

// Registers `memory` as region `id` on both ranks (in one process each rank's "mapping" of the
// other's memory is the memory itself).
void register_on_both(ShmPair& pair, std::int64_t id, std::span<const std::byte> rank0, std::span<const std::byte> rank1) {
  pair.rank(0).add_region(id, rank0, {{}, rank1});
  pair.rank(1).add_region(id, rank1, {rank0, {}});
}

TEST(ShmTransport, ASendOutOfARegisteredBufferIsReadInPlaceAndCompletesWhenRead) {
  ShmPair pair(2, 64);  // slots far smaller than the message: only the direct path fits it in one
  pair.rank(0).set_direct_min_bytes(256);
  std::vector<std::byte> registered = shm_pattern(4096, 3);
  std::vector<std::byte> peer_memory(64);
  register_on_both(pair, 0, registered, peer_memory);
  const std::span<const std::byte> message = std::span<const std::byte>(registered).subspan(1000, 2000);
  RequestPtr send = pair.rank(0).post_send(message, 1, 11);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(send->test()) << "a direct send completes only once the receiver read it";
  std::vector<std::byte> incoming(2000);
  pair.rank(1).post_recv(incoming, 0, 11)->wait(deadline_in(30s), "receive");
  EXPECT_TRUE(std::equal(incoming.begin(), incoming.end(), message.begin()));
  send->wait(deadline_in(30s), "send");
  // Below the threshold, or outside the region, the bytes travel through the slots.
  const auto small = shm_pattern(100, 4);
  RequestPtr copied = pair.rank(0).post_send(std::span<const std::byte>(registered).first(100), 1, 12);
  EXPECT_TRUE(copied->test()) << "a copied send completes once it is in the slots";
  std::vector<std::byte> small_incoming(100);
  pair.rank(1).post_recv(small_incoming, 0, 12)->wait(deadline_in(30s), "small receive");
  EXPECT_TRUE(std::equal(small_incoming.begin(), small_incoming.end(), registered.begin()));
}

TEST(ShmTransport, ReducesStraightOutOfTheSendersRegisteredBuffer) {
  ShmPair pair;
  pair.rank(0).set_direct_min_bytes(8);
  const std::size_t count = 777;
  std::vector<float> outgoing(count);
  std::iota(outgoing.begin(), outgoing.end(), 1.0F);
  std::vector<float> base(count, 2.0F);
  std::vector<float> target(count, -1.0F);
  register_on_both(pair, 5, std::as_bytes(std::span(outgoing)), std::as_bytes(std::span(target)));
  RequestPtr send = pair.rank(0).post_send(std::as_bytes(std::span(outgoing)), 1, 3);
  RequestPtr recv = pair.rank(1).post_recv_reduce(std::as_writable_bytes(std::span(target)),
                                                  reinterpret_cast<const std::byte*>(base.data()), 0, 3,
                                                  DataType::float32, ReduceOp::sum);
  recv->wait(deadline_in(30s), "reducing receive");
  send->wait(deadline_in(30s), "send");
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(target[i], outgoing[i] + 2.0F) << "element " << i;
}

TEST(ShmTransport, ADirectSendTheReceiverHasNotMappedFailsWithTheReason) {
  ShmPair pair;
  pair.rank(0).set_direct_min_bytes(8);
  std::vector<std::byte> registered = shm_pattern(512, 7);
  pair.rank(0).add_region(2, registered, {{}, std::span<const std::byte>(registered)});  // rank 1 never registers it
  RequestPtr send = pair.rank(0).post_send(registered, 1, 1);
  std::vector<std::byte> incoming(512);
  try {
    pair.rank(1).post_recv(incoming, 0, 1)->wait(deadline_in(30s), "receive");
    ADD_FAILURE() << "expected CommunicationError";
  } catch (const CommunicationError& error) {
    EXPECT_NE(std::string(error.what()).find("registered buffer 2, which this rank has not mapped"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(pair.rank(0).add_region(2, registered, {{}, {}}), std::invalid_argument);  // id in use
  EXPECT_THROW(pair.rank(0).add_region(3, registered, {{}}), std::invalid_argument);      // wrong length
}

TEST(ShmTransport, RejectsPeersWithoutAChannel) {
  ShmPair pair;
  std::vector<std::byte> buffer(4);
  EXPECT_FALSE(pair.rank(0).reaches(0));
  EXPECT_FALSE(pair.rank(0).reaches(2));
  EXPECT_THROW(pair.rank(0).post_send(buffer, 2, 0), std::invalid_argument);
  EXPECT_THROW(pair.rank(0).post_recv(buffer, 0, 0), std::invalid_argument);
  EXPECT_THROW(ShmChannel(buffer.data() + 1, 1, 64), std::invalid_argument);
}

}  // namespace
}  // namespace ringlab
