// Communicator: one per rank. The executor only needs non-blocking point-to-point transfers of
// bytes with a tag, a wait with a deadline, and a barrier; backends (threads, MPI, later NCCL
// and CUDA peer) implement these. Matching: messages between one (sender, receiver) pair with
// the same tag match in posting order, as in MPI.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/datatype.hpp"

namespace ringlab {

using Clock = std::chrono::steady_clock;

// A time-out given in seconds on a command line, as the milliseconds waits take (rounded down).
inline std::chrono::milliseconds timeout_from_seconds(double seconds) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
}

// Thrown when a wait passes its deadline; the message names rank, operation, peer and tag.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when ranks disagree (sizes, tags, configuration) or a peer aborted the job.
class CommunicationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A posted transfer. Destroying an incomplete request cancels it (or waits for an in-flight copy)
// so the buffer may be freed afterwards.
class Request {
 public:
  virtual ~Request() = default;
  // Blocks until the transfer completed; throws TimeoutError after `deadline`, CommunicationError
  // on a mismatch. `what` describes the operation for the error message.
  virtual void wait(Clock::time_point deadline, std::string_view what) = 0;
  // Non-blocking completion check.
  virtual bool test() = 0;
};
using RequestPtr = std::unique_ptr<Request>;

// Memory for a collective's buffers, from Communicator::allocate_buffer; zero-filled. Must be
// destroyed before the communicator that made it.
class CommBuffer {
 public:
  virtual ~CommBuffer() = default;
  virtual std::span<std::byte> bytes() = 0;
  // True when the backend lets peers read sends straight out of this memory (no copy into a
  // transport buffer), as NCCL does with registered user buffers.
  virtual bool registered() const { return false; }
  // Why it is or is not registered, in words, for report headers.
  virtual std::string description() const = 0;
  // True for device (GPU) memory: bytes() is then not readable on the host; move data in and out
  // with Communicator::copy.
  virtual bool on_device() const { return false; }
};

// Plain zero-filled heap memory, not registered; `description` says why.
std::unique_ptr<CommBuffer> make_heap_buffer(std::size_t bytes, std::string description);

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string_view backend_name() const = 0;

  virtual RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) = 0;
  virtual RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) = 0;
  virtual void barrier(Clock::time_point deadline) = 0;

  // Receives like post_recv but combines each piece as it arrives: target[i] = base[i] (op)
  // incoming[i], where base may be target.data(). Only backends whose transport can read incoming
  // data in place offer it, per peer (the mpi backend's shared memory, the threads backend, and
  // cuda-peer where the receiver's GPU can read the sender's); the executor otherwise receives
  // into scratch and combines afterwards. The default throws std::logic_error.
  virtual bool can_reduce_on_receive(int /*peer*/) const { return false; }
  virtual RequestPtr post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag,
                                      DataType type, ReduceOp op);

  // Memory for collective buffers of at least `bytes` bytes. Collective: every rank calls it, in
  // the same order, before any rank uses the memory; gives up after `deadline`. The default (and
  // every backend without registration) is plain heap memory; the mpi backend returns shared
  // memory its peers on the host have mapped, so the shared-memory transport moves sends out of
  // it with one copy (ShmTransport::add_region).
  virtual std::unique_ptr<CommBuffer> allocate_buffer(std::size_t bytes, Clock::time_point deadline);

  // How messages travel, in words, for report headers (e.g. "shared memory within the host").
  virtual std::string transport_description() const { return std::string(backend_name()); }
  // The largest piece in which the transport hands every peer's message, out of buffers that are
  // not registered, to a receive, which combines each piece as it lands (can_reduce_on_receive);
  // 0 when it hands them whole, or not to every peer alike. What ringlab calibrate records.
  virtual std::int64_t receive_fragment_bytes() const { return 0; }

  // The backend's own all-reduce (MPI_Allreduce for `mpi`), the `*-native` baseline.
  // The default throws: not every backend has one. Gives up after `deadline` (TimeoutError) where
  // the backend can (mpi: MPI_Iallreduce polled; nccl: queued on the stream, waited on later).
  virtual void native_allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                                Clock::time_point deadline);
  virtual bool has_native_allreduce() const { return false; }
  virtual std::string native_allreduce_name() const { return {}; }

  // Ends every rank of the job (MPI_Abort, or an abort flag all threads observe).
  virtual void abort(std::string_view reason) = 0;
  // True once another rank aborted the job and this one should stop (threads worlds; an MPI
  // abort ends the process instead, so the default is false).
  virtual bool aborted() const { return false; }

  // What the executor does to the data itself. The defaults are the CPU kernels of reduce.hpp and
  // memcpy (host memory). A device backend overrides them so that, on device memory, they run on
  // its device, queued in order with its transfers; every pointer of one call is of one kind.
  virtual bool is_device_memory(const void* /*pointer*/) const { return false; }
  virtual void copy(void* target, const void* source, std::size_t bytes);  // also host <-> device
  virtual void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op);
  virtual void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op);
  virtual void divide(void* data, std::size_t count, DataType type, int divisor);
  // Scratch memory of the kind of `like` (device memory for device pointers); the default is heap.
  virtual std::unique_ptr<CommBuffer> allocate_scratch(std::size_t bytes, const void* like);
  // The executor calls begin_step() before it posts a step's transfers and end_step() once they
  // are all posted, before any wait (NCCL groups a step's sends and receives this way).
  virtual void begin_step() {}
  virtual void end_step() {}
  // Returns once everything this rank queued on its device has finished (host backends: at once).
  virtual void synchronize() {}
  // Device timing: record_time_mark() queues a timestamp (a CUDA event) on the rank's stream;
  // take_time_marks() waits for the last one and returns the seconds between consecutive marks
  // recorded since the previous take, then forgets them. Host backends record nothing and return
  // an empty list.
  virtual void record_time_mark() {}
  virtual std::vector<double> take_time_marks() { return {}; }
};

}  // namespace ringlab
