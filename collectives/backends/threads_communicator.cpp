#include "collectives/backends/threads_communicator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

#include "collectives/reduce.hpp"

namespace ringlab {

namespace {

// One posted send or receive. Owned jointly by its request and, while it is queued or being
// copied, by the mailbox / the peer that copies; all fields after `bytes` are guarded by the
// channel mutex.
struct Post {
  enum class State { queued, copying, done, failed };

  bool is_send = false;
  int src = 0;
  int dst = 0;
  int tag = 0;
  const std::byte* send_data = nullptr;
  std::byte* recv_data = nullptr;
  std::size_t bytes = 0;
  bool combines = false;    // receives: post_recv_reduce
  ReceiveCombine combine;   // ... and how

  State state = State::queued;
  std::string error;  // set when state == failed
  std::shared_ptr<void> token;  // sends: what ThreadsTransport::move returned, handed over by wait
};

using PostPtr = std::shared_ptr<Post>;

}  // namespace

struct ThreadsWorld::Channel {
  std::mutex mutex;
  std::condition_variable cv;  // signalled when a post of this channel changes state
  std::deque<PostPtr> sends;   // at most one of the two queues is non-empty
  std::deque<PostPtr> recvs;
};

namespace {

std::string mismatch_message(const Post& send, const Post& recv) {
  std::string message = fmt::format(
      "threads backend: rank {} posted a receive of {} bytes (tag {}) from rank {}, but rank {} sent {} bytes (tag {})",
      recv.dst, recv.bytes, recv.tag, recv.src, send.src, send.bytes, send.tag);
  if (send.tag != recv.tag) message += "; messages between two ranks must be posted in the same order on both sides";
  return message;
}

std::string describe(const Post& post) {
  return post.is_send ? fmt::format("send of {} bytes to rank {} (tag {})", post.bytes, post.dst, post.tag)
                      : fmt::format("{}receive of {} bytes from rank {} (tag {})", post.combines ? "combining " : "",
                                    post.bytes, post.src, post.tag);
}

// target = base (op) source on the calling thread, host memory.
void combine_on_host(const std::byte* source, std::byte* target, std::size_t bytes, const ReceiveCombine& combine) {
  const std::size_t count = bytes / element_size(combine.type);
  if (combine.base == target) reduce_into(target, source, count, combine.type, combine.op);
  else reduce_to(target, combine.base, source, count, combine.type, combine.op);
}

// Pairs `post` with the front of the opposite queue (copying the data, outside the lock) or
// queues it.
void submit(ThreadsWorld::Channel& channel, ThreadsTransport* transport, const PostPtr& post) {
  PostPtr partner;
  {
    std::lock_guard lock(channel.mutex);
    auto& theirs = post->is_send ? channel.recvs : channel.sends;
    if (theirs.empty()) {
      (post->is_send ? channel.sends : channel.recvs).push_back(post);
      return;
    }
    partner = std::move(theirs.front());
    theirs.pop_front();
    const Post& send = post->is_send ? *post : *partner;
    const Post& recv = post->is_send ? *partner : *post;
    if (send.tag != recv.tag || send.bytes != recv.bytes) {
      post->error = partner->error = mismatch_message(send, recv);
      post->state = partner->state = Post::State::failed;
      channel.cv.notify_all();
      return;
    }
    post->state = partner->state = Post::State::copying;
  }
  const Post& send = post->is_send ? *post : *partner;
  const Post& recv = post->is_send ? *partner : *post;
  std::shared_ptr<void> token;
  std::string error;
  try {
    if (recv.combines) {
      if (transport != nullptr)
        token = transport->move_reduce(send.send_data, recv.recv_data, send.bytes, recv.combine, send.src, send.dst);
      else if (send.bytes > 0)
        combine_on_host(send.send_data, recv.recv_data, send.bytes, recv.combine);
    } else if (transport != nullptr) {
      token = transport->move(send.send_data, recv.recv_data, send.bytes, send.src, send.dst);
    } else if (send.bytes > 0) {
      std::memcpy(recv.recv_data, send.send_data, send.bytes);
    }
  } catch (const std::exception& failure) {
    error = failure.what();
  }
  std::lock_guard lock(channel.mutex);
  (post->is_send ? post : partner)->token = std::move(token);
  if (!error.empty()) post->error = partner->error = error;
  post->state = partner->state = error.empty() ? Post::State::done : Post::State::failed;
  channel.cv.notify_all();
}

class ThreadsRequest final : public Request {
 public:
  ThreadsRequest(std::shared_ptr<ThreadsWorld> world, ThreadsWorld::Channel& channel, PostPtr post, int rank)
      : world_(std::move(world)), channel_(channel), post_(std::move(post)), rank_(rank) {}

  ThreadsRequest(const ThreadsRequest&) = delete;
  ThreadsRequest& operator=(const ThreadsRequest&) = delete;

  // Unqueues a post nobody matched yet, or waits for a copy in progress, so that the caller may
  // free the buffer afterwards.
  ~ThreadsRequest() override {
    std::unique_lock lock(channel_.mutex);
    if (post_->state == Post::State::queued) {
      auto& queue = post_->is_send ? channel_.sends : channel_.recvs;
      const auto it = std::find(queue.begin(), queue.end(), post_);
      if (it != queue.end()) queue.erase(it);
    } else {
      channel_.cv.wait(lock, [&] { return post_->state != Post::State::copying; });
    }
  }

  void wait(Clock::time_point deadline, std::string_view what) override {
    std::unique_lock lock(channel_.mutex);
    const bool finished = channel_.cv.wait_until(lock, deadline, [&] {
      return post_->state == Post::State::done || post_->state == Post::State::failed || world_->aborted();
    });
    if (!finished) {
      throw TimeoutError(fmt::format("threads backend: rank {}: {} timed out: {} {}", rank_, what, describe(*post_),
                                     post_->state == Post::State::queued ? "was never matched by the peer"
                                                                         : "was still being copied"));
    }
    check(what);
    hand_over_token(lock);
  }

  bool test() override {
    std::unique_lock lock(channel_.mutex);
    if (post_->state == Post::State::done) {
      hand_over_token(lock);
      return true;
    }
    check("test");
    return false;
  }

 private:
  // A completed send passes the transport's token back to it once (the lock is released for the call).
  template <typename Lock>
  void hand_over_token(Lock& lock) {
    if (!post_->token) return;
    std::shared_ptr<void> token = std::move(post_->token);
    lock.unlock();
    world_->transport()->send_completed(rank_, token);
    lock.lock();
  }

  // Called with the lock held: throws for a failed post or an aborted world.
  void check(std::string_view what) const {
    if (post_->state == Post::State::done) return;
    if (post_->state == Post::State::failed) throw CommunicationError(post_->error);
    if (world_->aborted()) {
      throw CommunicationError(fmt::format("threads backend: rank {}: {} interrupted ({}): the job was aborted: {}",
                                           rank_, what, describe(*post_), world_->abort_reason()));
    }
  }

  std::shared_ptr<ThreadsWorld> world_;  // keeps the channel alive
  ThreadsWorld::Channel& channel_;
  PostPtr post_;
  int rank_;
};

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

}  // namespace

std::shared_ptr<void> ThreadsTransport::move_reduce(const std::byte* source, std::byte* target, std::size_t bytes,
                                                   const ReceiveCombine& combine, int, int) {
  if (bytes > 0) combine_on_host(source, target, bytes, combine);
  return nullptr;
}

std::int64_t ThreadsWorld::bytes_per_mailbox() {
  constexpr std::int64_t malloc_header = 16;
  constexpr std::int64_t deque_first_blocks = 64 + 512 + 2 * malloc_header;
  return static_cast<std::int64_t>(sizeof(Channel) + sizeof(std::unique_ptr<Channel>)) + malloc_header +
         2 * deque_first_blocks;
}

ThreadsJobEstimate estimate_threads_job(std::int64_t nranks) {
  // Per rank: the stack its thread touches and glibc's per-thread state (the 8 MiB stack is only
  // reserved), and a program of up to 2N steps at ~128 B each (a step's vector, its ops, the
  // allocator's headers). Fitted here (mailboxes of 1488 B) to the peak RSS of ringlab allreduce
  // / bench --algo ring at 8 B: 154, 539 and 1926 MB at 256, 512 and 1000 ranks; estimates 156,
  // 541 and 1908 MB.
  constexpr double thread_bytes = 160 << 10;
  constexpr double program_bytes_per_peer = 2 * 128;
  ThreadsJobEstimate estimate;
  const std::int64_t ranks = std::clamp<std::int64_t>(nranks, 0, std::int64_t{1} << 31);
  estimate.mailboxes = ranks * ranks;
  const auto n = static_cast<double>(ranks);
  estimate.mailbox_bytes = n * n * static_cast<double>(ThreadsWorld::bytes_per_mailbox());
  estimate.per_rank_bytes = n * (thread_bytes + program_bytes_per_peer * n);
  return estimate;
}

void check_threads_job(int nranks, double buffer_bytes, std::int64_t available_bytes) {
  if (nranks < 1) throw std::invalid_argument(fmt::format("--ranks must be at least 1 (got {})", nranks));
  constexpr const char* instead = "run the ranks as processes (mpiexec -n N ringlab ... --backend mpi)";
  if (nranks > ThreadsWorld::max_ranks)
    throw std::invalid_argument(fmt::format("--ranks {} is more than the threads backend's limit of {} ranks (one "
                                            "thread per rank, a mailbox per pair of ranks); lower --ranks, or {}",
                                            nranks, ThreadsWorld::max_ranks, instead));
  constexpr double gib = 1 << 30;
  const ThreadsJobEstimate job = estimate_threads_job(nranks);
  const double needed = job.total_bytes() + buffer_bytes;
  if (available_bytes > 0 && needed > static_cast<double>(available_bytes))
    throw std::invalid_argument(fmt::format(
        "--ranks {} needs about {:.2f} GiB on the threads backend ({} mailboxes between pairs of ranks: {:.2f} GiB; "
        "threads and per-rank programs: {:.2f} GiB; buffers: {:.2f} GiB) but only {:.2f} GiB is available; lower "
        "--ranks, or {}",
        nranks, needed / gib, job.mailboxes, job.mailbox_bytes / gib, job.per_rank_bytes / gib, buffer_bytes / gib,
        static_cast<double>(available_bytes) / gib, instead));
}

ThreadsWorld::ThreadsWorld(int nranks, std::shared_ptr<ThreadsTransport> transport)
    : nranks_(nranks), transport_(std::move(transport)) {
  if (nranks < 1) throw std::invalid_argument(fmt::format("threads backend: need at least 1 rank, got {}", nranks));
  if (nranks > max_ranks)
    throw std::invalid_argument(fmt::format("threads backend: {} ranks is more than the limit of {} (one thread and "
                                            "{} mailboxes per rank)",
                                            nranks, max_ranks, nranks));
  const std::size_t mailboxes = static_cast<std::size_t>(nranks) * static_cast<std::size_t>(nranks);
  channels_.reserve(mailboxes);
  for (std::size_t i = 0; i < mailboxes; ++i) channels_.push_back(std::make_unique<Channel>());
}

ThreadsWorld::~ThreadsWorld() = default;

ThreadsWorld::Channel& ThreadsWorld::channel(int src, int dst) {
  return *channels_[static_cast<std::size_t>(src) * static_cast<std::size_t>(nranks_) + static_cast<std::size_t>(dst)];
}

void ThreadsWorld::abort(std::string_view reason) {
  {
    std::lock_guard lock(abort_mutex_);
    if (aborted_.load(std::memory_order_relaxed)) return;
    abort_reason_ = reason;
    aborted_.store(true, std::memory_order_release);
  }
  // Taking each mutex before notifying means no waiter can miss the flag between its check and
  // its sleep.
  for (auto& channel : channels_) {
    std::lock_guard lock(channel->mutex);
    channel->cv.notify_all();
  }
  std::lock_guard lock(barrier_mutex_);
  barrier_cv_.notify_all();
}

std::string ThreadsWorld::abort_reason() const {
  std::lock_guard lock(abort_mutex_);
  return abort_reason_;
}

void ThreadsWorld::barrier(int rank, Clock::time_point deadline) {
  std::unique_lock lock(barrier_mutex_);
  const std::uint64_t generation = barrier_generation_;
  if (barrier_waiting_.empty()) barrier_waiting_.assign(static_cast<std::size_t>(nranks_), false);
  if (!aborted() && ++barrier_arrived_ == nranks_) {
    barrier_arrived_ = 0;
    std::fill(barrier_waiting_.begin(), barrier_waiting_.end(), false);
    ++barrier_generation_;
    barrier_cv_.notify_all();
    return;
  }
  if (!aborted()) {
    barrier_waiting_[static_cast<std::size_t>(rank)] = true;
    barrier_cv_.wait_until(lock, deadline, [&] { return barrier_generation_ != generation || aborted(); });
    if (barrier_generation_ != generation) return;
    --barrier_arrived_;  // leave, so that the barrier stays consistent for the others
    barrier_waiting_[static_cast<std::size_t>(rank)] = false;
  }
  if (aborted()) {
    throw CommunicationError(
        fmt::format("threads backend: rank {}: barrier interrupted: the job was aborted: {}", rank, abort_reason()));
  }
  std::string missing;
  for (int peer = 0; peer < nranks_; ++peer)
    if (peer != rank && !barrier_waiting_[static_cast<std::size_t>(peer)])
      missing += fmt::format("{}{}", missing.empty() ? "" : ", ", peer);
  throw TimeoutError(fmt::format("threads backend: rank {}: barrier timed out: only {} of {} ranks arrived; waiting "
                                 "for peer rank(s) {}",
                                 rank, barrier_arrived_ + 1, nranks_, missing));
}

ThreadsCommunicator::ThreadsCommunicator(std::shared_ptr<ThreadsWorld> world, int rank)
    : world_(std::move(world)), rank_(rank) {
  if (!world_) throw std::invalid_argument("threads backend: communicator needs a world");
  if (rank < 0 || rank >= world_->size()) {
    throw std::invalid_argument(
        fmt::format("threads backend: rank {} is out of range for a world of {} ranks", rank, world_->size()));
  }
}

void ThreadsCommunicator::check_peer(int peer, std::string_view operation) const {
  if (peer < 0 || peer >= size()) {
    throw std::invalid_argument(fmt::format("threads backend: rank {}: {} to/from peer {}, which is outside 0..{}",
                                            rank_, operation, peer, size() - 1));
  }
  if (peer == rank_) {
    throw std::invalid_argument(
        fmt::format("threads backend: rank {}: {} with itself as the peer is not supported", rank_, operation));
  }
  if (world_->aborted()) {
    throw CommunicationError(fmt::format("threads backend: rank {}: {} after the job was aborted: {}", rank_,
                                         operation, world_->abort_reason()));
  }
}

RequestPtr ThreadsCommunicator::post_send(std::span<const std::byte> data, int peer, int tag) {
  check_peer(peer, "post_send");
  auto post = std::make_shared<Post>();
  post->is_send = true;
  post->src = rank_;
  post->dst = peer;
  post->tag = tag;
  post->send_data = data.data();
  post->bytes = data.size();
  ThreadsWorld::Channel& channel = world_->channel(rank_, peer);
  auto request = std::make_unique<ThreadsRequest>(world_, channel, post, rank_);
  submit(channel, world_->transport(), post);
  return request;
}

RequestPtr ThreadsCommunicator::post_recv(std::span<std::byte> data, int peer, int tag) {
  return post_receive(data, peer, tag, nullptr);
}

bool ThreadsCommunicator::can_reduce_on_receive(int peer) const {
  const ThreadsTransport* transport = world_->transport();
  return transport == nullptr || transport->can_reduce(peer, rank_);
}

RequestPtr ThreadsCommunicator::post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer,
                                                 int tag, DataType type, ReduceOp op) {
  if (!can_reduce_on_receive(peer)) refuse_recv_reduce(backend_name(), peer);
  if (target.size() % element_size(type) != 0) {
    throw std::invalid_argument(fmt::format("threads backend: rank {}: combining receive of {} bytes from rank {} is "
                                            "not a whole number of {} elements",
                                            rank_, target.size(), peer, name_of(type)));
  }
  const ReceiveCombine combine{base, type, op};
  return post_receive(target, peer, tag, &combine);
}

RequestPtr ThreadsCommunicator::post_receive(std::span<std::byte> data, int peer, int tag,
                                             const ReceiveCombine* combine) {
  check_peer(peer, combine != nullptr ? "post_recv_reduce" : "post_recv");
  auto post = std::make_shared<Post>();
  post->src = peer;
  post->dst = rank_;
  post->tag = tag;
  post->recv_data = data.data();
  post->bytes = data.size();
  if (combine != nullptr) {
    post->combines = true;
    post->combine = *combine;
  }
  ThreadsWorld::Channel& channel = world_->channel(peer, rank_);
  auto request = std::make_unique<ThreadsRequest>(world_, channel, post, rank_);
  submit(channel, world_->transport(), post);
  return request;
}

void ThreadsCommunicator::barrier(Clock::time_point deadline) { world_->barrier(rank_, deadline); }

void ThreadsCommunicator::abort(std::string_view reason) {
  world_->abort(fmt::format("rank {} aborted: {}", rank_, reason));
}

void run_threads(int nranks, const std::function<void(Communicator&)>& body) {
  auto world = std::make_shared<ThreadsWorld>(nranks);
  run_threads(
      world, [&](int rank) { return std::make_unique<ThreadsCommunicator>(world, rank); }, body);
}

void run_threads(const std::shared_ptr<ThreadsWorld>& world,
                 const std::function<std::unique_ptr<Communicator>(int rank)>& make_communicator,
                 const std::function<void(Communicator&)>& body) {
  const int nranks = world->size();
  std::mutex error_mutex;
  std::exception_ptr first_error;
  const auto run_rank = [&](int rank) {
    try {
      const std::unique_ptr<Communicator> communicator = make_communicator(rank);
      body(*communicator);
    } catch (...) {
      const std::exception_ptr error = std::current_exception();
      {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = error;
      }
      world->abort(fmt::format("rank {} failed: {}", rank, describe(error)));
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(nranks));
  try {
    for (int rank = 0; rank < nranks; ++rank) threads.emplace_back(run_rank, rank);
  } catch (...) {
    world->abort("could not start a thread for every rank");
    for (auto& thread : threads) thread.join();
    throw;
  }
  for (auto& thread : threads) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace ringlab
