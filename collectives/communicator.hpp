// Communicator: one per rank. The executor only needs non-blocking point-to-point transfers of
// bytes with a tag, a wait with a deadline, and a barrier; every backend (threads, mpi, cuda-peer,
// nccl) implements these. Matching: messages between one (sender, receiver) pair with the same
// tag match in posting order, as in MPI.
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

// Memory for a collective's buffers (collective_buffer, capabilities.hpp); zero-filled. Must be
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
  // with DeviceData::copy (capabilities.hpp).
  virtual bool on_device() const { return false; }
};

// Plain zero-filled heap memory, not registered; `description` says why.
std::unique_ptr<CommBuffer> make_heap_buffer(std::size_t bytes, std::string description);

class ReceiveReduce;
class BufferAllocation;
class DeviceData;
class DeviceTiming;
class NativeAllreduce;

// The transport every backend provides; what a backend may offer besides is a capability
// (collectives/capabilities.hpp) handed out by the accessors at the end, nullptr where absent.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string_view backend_name() const = 0;

  virtual RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) = 0;
  virtual RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) = 0;
  virtual void barrier(Clock::time_point deadline) = 0;

  // Ends every rank of the job (MPI_Abort, or an abort flag all threads observe).
  virtual void abort(std::string_view reason) = 0;
  // True once another rank aborted the job and this one should stop (threads worlds; an MPI
  // abort ends the process instead, so the default is false).
  virtual bool aborted() const { return false; }

  // How messages travel, in words, for report headers (e.g. "shared memory within the host").
  virtual std::string transport_description() const { return std::string(backend_name()); }

  // The optional capabilities, each owned by the communicator (usually the communicator itself).
  virtual ReceiveReduce* receive_reduce() { return nullptr; }
  virtual BufferAllocation* buffer_allocation() { return nullptr; }
  virtual DeviceData* device_data() { return nullptr; }
  virtual DeviceTiming* device_timing() { return nullptr; }
  virtual NativeAllreduce* native_allreduce() { return nullptr; }
};

}  // namespace ringlab
