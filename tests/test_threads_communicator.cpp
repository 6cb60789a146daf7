#include "collectives/backends/threads_communicator.hpp"

#include "collectives/execute.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ringlab {
namespace {

using namespace std::chrono_literals;

Clock::time_point in(Clock::duration duration) { return Clock::now() + duration; }

// Payload byte i of the message (src -> dst, tag).
std::byte pattern(int src, int dst, int tag, std::size_t i) {
  return static_cast<std::byte>((src * 31 + dst * 17 + tag * 7 + static_cast<int>(i)) & 0xff);
}

std::vector<std::byte> make_message(int src, int dst, int tag, std::size_t bytes) {
  std::vector<std::byte> message(bytes);
  for (std::size_t i = 0; i < bytes; ++i) message[i] = pattern(src, dst, tag, i);
  return message;
}

std::span<const std::byte> as_bytes(const std::string& text) { return std::as_bytes(std::span(text)); }

TEST(ThreadsCommunicator, AllPairsExchangeWithManyTags) {
  constexpr int nranks = 8;
  constexpr int ntags = 12;
  const auto bytes_for = [](int tag) { return static_cast<std::size_t>(tag) * 97; };  // tag 0: empty message
  run_threads(nranks, [&](Communicator& comm) {
    EXPECT_EQ(comm.size(), nranks);
    EXPECT_EQ(comm.backend_name(), "threads");
    const int me = comm.rank();
    std::vector<std::vector<std::byte>> outgoing;
    std::vector<std::vector<std::byte>> incoming;
    std::vector<RequestPtr> requests;
    // Pre-size so that buffers never move while posted.
    outgoing.reserve(nranks * ntags);
    incoming.reserve(nranks * ntags);
    for (int step = 1; step < nranks; ++step) {
      const int to = (me + step) % nranks;
      const int from = (me - step + nranks) % nranks;
      for (int tag = 0; tag < ntags; ++tag) {
        incoming.emplace_back(bytes_for(tag));
        requests.push_back(comm.post_recv(incoming.back(), from, tag));
        outgoing.push_back(make_message(me, to, tag, bytes_for(tag)));
        requests.push_back(comm.post_send(outgoing.back(), to, tag));
      }
    }
    for (auto& request : requests) request->wait(in(10s), "exchange");
    std::size_t index = 0;
    for (int step = 1; step < nranks; ++step) {
      const int from = (me - step + nranks) % nranks;
      for (int tag = 0; tag < ntags; ++tag, ++index) {
        EXPECT_EQ(incoming[index], make_message(from, me, tag, bytes_for(tag))) << "from " << from << " tag " << tag;
      }
    }
    comm.barrier(in(10s));
  });
}

TEST(ThreadsCommunicator, MessagesMatchInPostingOrder) {
  run_threads(2, [](Communicator& comm) {
    const std::vector<std::string> words = {"first", "second", "third"};
    for (const bool receiver_posts_first : {false, true}) {
      // The barrier orders the posts: either every send is queued before the first receive is
      // posted, or the other way round.
      if (comm.rank() == 0) {
        if (receiver_posts_first) comm.barrier(in(10s));
        std::vector<RequestPtr> sends;
        for (const auto& word : words) sends.push_back(comm.post_send(as_bytes(word), 1, 5));
        if (!receiver_posts_first) comm.barrier(in(10s));
        for (auto& send : sends) send->wait(in(10s), "send word");
      } else {
        if (!receiver_posts_first) comm.barrier(in(10s));
        std::vector<std::string> received;
        for (const auto& word : words) received.emplace_back(word.size(), '?');
        std::vector<RequestPtr> recvs;
        for (auto& text : received) recvs.push_back(comm.post_recv(std::as_writable_bytes(std::span(text)), 0, 5));
        if (receiver_posts_first) comm.barrier(in(10s));
        for (auto& recv : recvs) recv->wait(Clock::time_point::max(), "receive word");  // no deadline
        EXPECT_EQ(received, words);
      }
    }
  });
}

TEST(ThreadsCommunicator, SizeMismatchFailsBothSides) {
  run_threads(2, [](Communicator& comm) {
    std::vector<std::byte> buffer(comm.rank() == 0 ? 128 : 64);
    RequestPtr request = comm.rank() == 0 ? comm.post_send(buffer, 1, 3) : comm.post_recv(buffer, 0, 3);
    try {
      request->wait(in(10s), "mismatched transfer");
      ADD_FAILURE() << "rank " << comm.rank() << ": expected CommunicationError";
    } catch (const CommunicationError& e) {
      EXPECT_EQ(std::string(e.what()),
                "threads backend: rank 1 posted a receive of 64 bytes (tag 3) from rank 0, but rank 0 sent 128 "
                "bytes (tag 3)");
    }
  });
}

TEST(ThreadsCommunicator, TagMismatchFailsBothSides) {
  run_threads(2, [](Communicator& comm) {
    std::vector<std::byte> buffer(16);
    RequestPtr request = comm.rank() == 0 ? comm.post_send(buffer, 1, 4) : comm.post_recv(buffer, 0, 9);
    try {
      request->wait(in(10s), "mismatched transfer");
      ADD_FAILURE() << "rank " << comm.rank() << ": expected CommunicationError";
    } catch (const CommunicationError& e) {
      EXPECT_NE(std::string(e.what()).find("(tag 9) from rank 0, but rank 0 sent 16 bytes (tag 4)"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(request->test(), CommunicationError);
  });
}

TEST(ThreadsCommunicator, UnmatchedReceiveTimesOut) {
  run_threads(2, [](Communicator& comm) {
    if (comm.rank() == 0) {
      std::vector<std::byte> buffer(8);
      RequestPtr request = comm.post_recv(buffer, 1, 11);
      EXPECT_FALSE(request->test());
      const auto start = Clock::now();
      try {
        request->wait(start + 200ms, "lonely receive");
        ADD_FAILURE() << "expected TimeoutError";
      } catch (const TimeoutError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("rank 0"), std::string::npos) << message;
        EXPECT_NE(message.find("lonely receive"), std::string::npos) << message;
        EXPECT_NE(message.find("from rank 1 (tag 11)"), std::string::npos) << message;
      }
      const auto elapsed = Clock::now() - start;
      EXPECT_GE(elapsed, 200ms);
      EXPECT_LT(elapsed, 2s);
    }
    comm.barrier(in(10s));
  });
}

TEST(ThreadsCommunicator, BarrierTimesOutAndStaysUsable) {
  std::atomic<int> timed_out{0};
  run_threads(3, [&](Communicator& comm) {
    if (comm.rank() != 2) {
      EXPECT_THROW(comm.barrier(in(200ms)), TimeoutError);
      ++timed_out;
    } else {
      while (timed_out.load() < 2) std::this_thread::sleep_for(1ms);
    }
    // The ranks that timed out left the barrier, so a full one still works.
    comm.barrier(in(10s));
    comm.barrier(in(10s));
  });
}

TEST(ThreadsCommunicator, ThrowingRankStopsTheOthers) {
  std::atomic<int> interrupted{0};
  const auto start = Clock::now();
  try {
    run_threads(8, [&](Communicator& comm) {
      if (comm.rank() == 3) {
        std::this_thread::sleep_for(50ms);
        throw std::runtime_error("boom");
      }
      std::vector<std::byte> buffer(4);
      try {
        if (comm.rank() % 2 == 0) {
          comm.post_recv(buffer, 3, 0)->wait(in(60s), "receive from the failing rank");
        } else {
          comm.barrier(in(60s));
        }
      } catch (const CommunicationError& e) {
        EXPECT_NE(std::string(e.what()).find("rank 3 failed: boom"), std::string::npos) << e.what();
        ++interrupted;
        throw;
      }
    });
    FAIL() << "run_threads should have rethrown";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom");
  }
  EXPECT_EQ(interrupted.load(), 7);
  EXPECT_LT(Clock::now() - start, 10s);
}

TEST(ThreadsCommunicator, AbortWakesWaiters) {
  EXPECT_THROW(run_threads(4,
                           [](Communicator& comm) {
                             if (comm.rank() == 0) {
                               std::this_thread::sleep_for(20ms);
                               comm.abort("giving up");
                               return;
                             }
                             std::vector<std::byte> buffer(4);
                             try {
                               comm.post_recv(buffer, 0, 1)->wait(in(60s), "receive");
                             } catch (const CommunicationError& e) {
                               EXPECT_NE(std::string(e.what()).find("rank 0 aborted: giving up"), std::string::npos)
                                   << e.what();
                               throw;
                             }
                           }),
               CommunicationError);
}

TEST(ThreadsCommunicator, DestroyingPendingRequestsIsSafe) {
  run_threads(2, [](Communicator& comm) {
    const int peer = 1 - comm.rank();
    // Pending requests that nobody matches leave no trace in the queues.
    if (comm.rank() == 0) {
      auto buffer = std::make_unique<std::vector<std::byte>>(32);
      RequestPtr recv = comm.post_recv(*buffer, peer, 1);
      RequestPtr send = comm.post_send(*buffer, peer, 2);
      recv.reset();
      send.reset();
      buffer.reset();
    }
    comm.barrier(in(10s));
    // Racing posts and destruction: the peer may be copying into or out of a buffer while its
    // owner destroys the request; the destructor has to wait for that copy.
    for (int round = 0; round < 200; ++round) {
      std::vector<std::byte> buffer(1 << 16, std::byte{1});
      RequestPtr request = comm.rank() == 0 ? comm.post_send(buffer, peer, 7) : comm.post_recv(buffer, peer, 7);
      if (round % 3 == 0) std::this_thread::yield();
    }
    comm.barrier(in(10s));
    // The queues are empty again: a clean exchange of a new size matches its own partner.
    const std::vector<std::byte> message = make_message(comm.rank(), peer, 8, 100);
    std::vector<std::byte> received(100);
    RequestPtr recv = comm.post_recv(received, peer, 8);
    comm.post_send(message, peer, 8)->wait(in(10s), "send after the races");
    recv->wait(in(10s), "receive after the races");
    EXPECT_EQ(received, make_message(peer, comm.rank(), 8, 100));
  });
}

TEST(ThreadsCommunicator, RejectsBadPeersAndHasNoNativeAllreduce) {
  run_threads(2, [](Communicator& comm) {
    std::vector<std::byte> buffer(4);
    EXPECT_THROW(comm.post_send(buffer, comm.rank(), 0), std::invalid_argument);
    EXPECT_THROW(comm.post_recv(buffer, 2, 0), std::invalid_argument);
    EXPECT_THROW(comm.post_recv(buffer, -1, 0), std::invalid_argument);
    EXPECT_EQ(comm.native_allreduce(), nullptr);
  });
  EXPECT_THROW(run_threads(0, [](Communicator&) {}), std::invalid_argument);
}

TEST(ThreadsCommunicator, SingleRankRuns) {
  int calls = 0;
  run_threads(1, [&](Communicator& comm) {
    ++calls;
    comm.barrier(in(1s));
  });
  EXPECT_EQ(calls, 1);
}

// The transport hook the cuda-peer backend uses: every matched pair goes through move() (here a
// copy that also counts), and the sender's wait hands move()'s token back exactly once.
class CountingTransport final : public ThreadsTransport {
 public:
  std::shared_ptr<void> move(const std::byte* source, std::byte* target, std::size_t bytes, int from,
                             int to) override {
    std::copy(source, source + bytes, target);
    moves.fetch_add(1);
    return std::make_shared<int>(from * 100 + to);
  }
  void send_completed(int rank, const std::shared_ptr<void>& token) override {
    const int value = *static_cast<const int*>(token.get());
    if (value / 100 == rank) completions.fetch_add(1);
    else wrong_rank.fetch_add(1);
  }
  std::atomic<int> moves{0};
  std::atomic<int> completions{0};
  std::atomic<int> wrong_rank{0};
};

TEST(ThreadsCommunicator, CustomTransportMovesEveryMessageAndCompletesEachSendOnce) {
  constexpr int nranks = 3;
  auto transport = std::make_shared<CountingTransport>();
  auto world = std::make_shared<ThreadsWorld>(nranks, transport);
  run_threads(
      world, [&](int rank) { return std::make_unique<ThreadsCommunicator>(world, rank); },
      [&](Communicator& comm) {
        const int next = (comm.rank() + 1) % nranks;
        const int previous = (comm.rank() + nranks - 1) % nranks;
        const std::vector<std::byte> message = make_message(comm.rank(), next, 5, 1000);
        std::vector<std::byte> received(1000);
        RequestPtr send = comm.post_send(message, next, 5);
        RequestPtr receive = comm.post_recv(received, previous, 5);
        receive->wait(in(10s), "receive");
        while (!send->test()) std::this_thread::yield();  // test() completes it once ...
        send->wait(in(10s), "send");                      // ... and a later wait does not again
        EXPECT_EQ(received, make_message(previous, comm.rank(), 5, 1000));
      });
  EXPECT_EQ(transport->moves.load(), nranks);
  EXPECT_EQ(transport->completions.load(), nranks);
  EXPECT_EQ(transport->wrong_rank.load(), 0);
}

// post_recv_reduce: the receiver's target becomes base (op) the sender's data at the match, out of
// place (base elsewhere) and in place (base = target), for a float and an integer op.
TEST(ThreadsCommunicator, CombiningReceiveReducesStraightFromTheSendBuffer) {
  run_threads(2, [](Communicator& comm) {
    ReceiveReduce* const combining = comm.receive_reduce();
    ASSERT_NE(combining, nullptr);
    ASSERT_TRUE(combining->can_reduce_on_receive(1 - comm.rank()));
    const std::array<float, 5> sent{1.5F, -2.0F, 3.25F, 0.0F, 1e6F};
    std::array<float, 5> base{10.0F, 20.0F, 30.0F, 40.0F, 50.0F};
    std::array<float, 5> target{};
    const std::array<std::int64_t, 3> sent_max{-7, 9, 4};
    std::array<std::int64_t, 3> in_place{-8, 10, 4};
    if (comm.rank() == 0) {
      comm.post_send(std::as_bytes(std::span(sent)), 1, 1)->wait(in(10s), "send");
      comm.post_send(std::as_bytes(std::span(sent_max)), 1, 2)->wait(in(10s), "send");
      return;
    }
    auto* base_bytes = reinterpret_cast<const std::byte*>(base.data());
    combining
        ->post_recv_reduce(std::as_writable_bytes(std::span(target)), base_bytes, 0, 1, DataType::float32, ReduceOp::sum)
        ->wait(in(10s), "combining receive");
    for (std::size_t i = 0; i < target.size(); ++i) EXPECT_EQ(target[i], base[i] + sent[i]) << "element " << i;
    const std::span<std::byte> inout = std::as_writable_bytes(std::span(in_place));
    combining->post_recv_reduce(inout, inout.data(), 0, 2, DataType::int64, ReduceOp::max)
        ->wait(in(10s), "combining receive");
    EXPECT_EQ(in_place, (std::array<std::int64_t, 3>{-7, 10, 4}));
  });
}

TEST(ThreadsCommunicator, CombiningReceiveOfAPartialElementIsRefused) {
  run_threads(2, [](Communicator& comm) {
    std::array<std::byte, 6> target{};
    try {
      comm.receive_reduce()->post_recv_reduce(target, target.data(), 1 - comm.rank(), 1, DataType::float32,
                                              ReduceOp::sum);
      ADD_FAILURE() << "6 bytes of float32 were accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("not a whole number of float32 elements"), std::string::npos)
          << error.what();
    }
  });
}

// A transport that copies and combines on the host, counting each kind, and allows combining
// receives only if told to (as cuda-peer allows them only where one GPU can read the other's).
class CombineCountingTransport final : public ThreadsTransport {
 public:
  explicit CombineCountingTransport(bool allow) : allow_(allow) {}
  std::shared_ptr<void> move(const std::byte* source, std::byte* target, std::size_t bytes, int, int) override {
    std::copy(source, source + bytes, target);
    moves.fetch_add(1);
    return nullptr;
  }
  std::shared_ptr<void> move_reduce(const std::byte* source, std::byte* target, std::size_t bytes,
                                    const ReceiveCombine& combine, int from, int to) override {
    combines.fetch_add(1);
    return ThreadsTransport::move_reduce(source, target, bytes, combine, from, to);
  }
  bool can_reduce(int, int) const override { return allow_; }
  std::atomic<int> moves{0};
  std::atomic<int> combines{0};

 private:
  bool allow_;
};

// The executor receives reduce-scatter chunks straight into the output, combining on the way in,
// where the transport allows it, and through scratch where it does not; both give the exact sum.
TEST(ThreadsCommunicator, ExecutorCombinesOnReceiveOnlyWhereTheTransportAllows) {
  constexpr int nranks = 3;
  constexpr std::int64_t count = 1001;
  for (const bool allow : {true, false}) {
    auto transport = std::make_shared<CombineCountingTransport>(allow);
    auto world = std::make_shared<ThreadsWorld>(nranks, transport);
    std::atomic<int> wrong{0};
    run_threads(
        world, [&](int rank) { return std::make_unique<ThreadsCommunicator>(world, rank); },
        [&](Communicator& comm) {
          std::vector<float> input(count);
          for (std::int64_t i = 0; i < count; ++i) input[static_cast<std::size_t>(i)] = static_cast<float>(comm.rank() * 1000 + i);
          std::vector<float> output(count, -1.0F);
          PreparedCollective ring("ring", Collective::allreduce, {}, nranks, comm.rank());
          ring.run(comm, input.data(), output.data(), count, DataType::float32, ReduceOp::sum, ExecuteOptions{});
          for (std::int64_t i = 0; i < count; ++i)
            if (output[static_cast<std::size_t>(i)] != static_cast<float>(3000 + 3 * i)) wrong.fetch_add(1);
        });
    EXPECT_EQ(wrong.load(), 0) << (allow ? "combining on receive" : "through scratch");
    // Ring: N - 1 reduce-scatter steps per rank, each one combining receive (or one copy into
    // scratch), then N - 1 all-gather copies; the executor's agreement messages are copies too.
    if (allow) EXPECT_EQ(transport->combines.load(), nranks * (nranks - 1));
    else EXPECT_EQ(transport->combines.load(), 0);
    EXPECT_GE(transport->moves.load(), nranks * (nranks - 1));
  }
}

}  // namespace
}  // namespace ringlab
