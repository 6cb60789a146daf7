// The `threads` backend: N ranks as threads of one process sharing memory.
//
// Every ordered pair (src, dst) has a mailbox: a mutex, a condition variable and FIFO queues of
// pending sends and pending receives. A post either pairs with the front of the opposite queue
// and copies straight from the send buffer into the receive buffer (rendezvous, no staging copy),
// or waits in its own queue for the peer. A combining receive (post_recv_reduce) reduces straight
// from the send buffer into its target at the match instead (target = base (op) send, no scratch
// and no second pass). Matching is strictly in posting order per pair: the
// i-th send from a to b meets the i-th receive at b from a, and a tag or size disagreement
// between them fails both requests with CommunicationError instead of hanging.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/capabilities.hpp"
#include "collectives/communicator.hpp"

namespace ringlab {

// What a combining receive does with the incoming data: target[i] = base[i] (op) incoming[i].
struct ReceiveCombine {
  const std::byte* base = nullptr;  // may be the target itself
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
};

// How a matched send reaches its receive. The threads backend copies with memcpy on the thread
// that made the match; the cuda-peer backend queues a device copy on the receiver's stream and
// hands the sender a token (an event) that its wait turns into a stream dependency.
class ThreadsTransport {
 public:
  virtual ~ThreadsTransport() = default;
  // Called once per matched pair with both buffers; returns what the sender's wait needs (or null).
  virtual std::shared_ptr<void> move(const std::byte* source, std::byte* target, std::size_t bytes, int from,
                                     int to) = 0;
  // The same for a combining receive (ThreadsCommunicator::post_recv_reduce): target = base (op)
  // source. The default combines on the calling thread with the CPU kernels (host memory).
  virtual std::shared_ptr<void> move_reduce(const std::byte* source, std::byte* target, std::size_t bytes,
                                            const ReceiveCombine& combine, int from, int to);
  // Whether rank `to` may post combining receives from rank `from` (the cuda-peer backend: only
  // where the receiver's device can read the sender's memory).
  virtual bool can_reduce(int /*from*/, int /*to*/) const { return true; }
  // Called by the sender's successful wait (once) with move()'s token.
  virtual void send_completed(int /*rank*/, const std::shared_ptr<void>& /*token*/) {}
};

// What a threads job of `nranks` ranks holds before its buffers, estimated before it starts (all
// counts in 64 bits). Every ordered pair of ranks has a mailbox, so the mailboxes grow as N^2;
// every rank has a thread and a program whose steps may grow with N (ring: 2(N-1) steps).
struct ThreadsJobEstimate {
  std::int64_t mailboxes = 0;   // nranks^2
  double mailbox_bytes = 0;     // mailboxes x ThreadsWorld::bytes_per_mailbox (a double: no overflow)
  double per_rank_bytes = 0;    // nranks x (thread stack and bookkeeping, the rank's program)
  double total_bytes() const { return mailbox_bytes + per_rank_bytes; }
};
ThreadsJobEstimate estimate_threads_job(std::int64_t nranks);

// Refuses a threads job (std::invalid_argument) before it starts: fewer than 1 or more than
// ThreadsWorld::max_ranks ranks, or the estimate above plus `buffer_bytes` (all ranks' buffers)
// over `available_bytes` (not checked when <= 0). Names the estimate, its parts, the limit and
// --ranks, as `ringlab` (cli/launch.cpp, bench) uses it.
void check_threads_job(int nranks, double buffer_bytes, std::int64_t available_bytes);

// State shared by the N communicators of one threads job: mailboxes, barrier and abort flag.
class ThreadsWorld {
 public:
  struct Channel;  // one (src, dst) mailbox, defined in the .cpp
  // The memory one mailbox takes: the struct, its two queues' first blocks and the allocator's
  // headers (libstdc++'s std::deque allocates a 64-byte map and a 512-byte block when made).
  static std::int64_t bytes_per_mailbox();
  // More ranks than this are refused (threads of one process; beyond it the N^2 mailboxes alone
  // take 25 GiB).
  static constexpr int max_ranks = 4096;

  // Throws std::invalid_argument unless 1 <= nranks <= max_ranks. Without a transport, matched
  // messages are copied with memcpy.
  explicit ThreadsWorld(int nranks, std::shared_ptr<ThreadsTransport> transport = nullptr);
  ~ThreadsWorld();
  ThreadsWorld(const ThreadsWorld&) = delete;
  ThreadsWorld& operator=(const ThreadsWorld&) = delete;

  int size() const { return nranks_; }
  Channel& channel(int src, int dst);
  ThreadsTransport* transport() const { return transport_.get(); }

  // Sets the abort flag (the first reason is kept) and wakes every waiter, which then throws
  // CommunicationError.
  void abort(std::string_view reason);
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  std::string abort_reason() const;

  void barrier(int rank, Clock::time_point deadline);

 private:
  int nranks_;
  std::shared_ptr<ThreadsTransport> transport_;
  std::vector<std::unique_ptr<Channel>> channels_;  // nranks * nranks, index src * nranks + dst

  mutable std::mutex abort_mutex_;
  std::atomic<bool> aborted_{false};
  std::string abort_reason_;

  std::mutex barrier_mutex_;
  std::condition_variable barrier_cv_;
  int barrier_arrived_ = 0;
  std::vector<bool> barrier_waiting_;  // per rank: in the current barrier (names the missing ones on a time-out)
  std::uint64_t barrier_generation_ = 0;
};

// Offers the combining receive (ReceiveReduce): it combines at the match, straight from the
// sender's buffer (no scratch, one pass).
class ThreadsCommunicator final : public Communicator, public ReceiveReduce {
 public:
  ThreadsCommunicator(std::shared_ptr<ThreadsWorld> world, int rank);

  int rank() const override { return rank_; }
  int size() const override { return world_->size(); }
  std::string_view backend_name() const override { return "threads"; }

  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override;
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override;
  void barrier(Clock::time_point deadline) override;
  bool aborted() const override { return world_->aborted(); }
  void abort(std::string_view reason) override;

  ReceiveReduce* receive_reduce() override { return this; }
  bool can_reduce_on_receive(int peer) const override;
  RequestPtr post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag, DataType type,
                              ReduceOp op) override;

 private:
  void check_peer(int peer, std::string_view operation) const;
  RequestPtr post_receive(std::span<std::byte> data, int peer, int tag, const ReceiveCombine* combine);

  std::shared_ptr<ThreadsWorld> world_;
  int rank_;
};

// Runs body(communicator) on `nranks` threads, one per rank, and joins them all. When a rank
// throws, the world is aborted at once (the other ranks' waits throw CommunicationError), and
// after every thread has been joined the first exception thrown is rethrown.
void run_threads(int nranks, const std::function<void(Communicator&)>& body);

// The same on an existing world, with the communicator of each rank made by `make_communicator`
// on that rank's thread (the cuda-peer backend wraps a ThreadsCommunicator with its device).
void run_threads(const std::shared_ptr<ThreadsWorld>& world,
                 const std::function<std::unique_ptr<Communicator>(int rank)>& make_communicator,
                 const std::function<void(Communicator&)>& body);

}  // namespace ringlab
