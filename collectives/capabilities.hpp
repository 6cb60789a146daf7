// What a backend may offer beyond the transport every Communicator provides, one small interface
// a capability (as Gloo keeps buffers apart from its transport pair). A communicator hands each
// out through its accessor (Communicator::receive_reduce() ...), nullptr where it has none; a
// backend usually implements the interface itself and returns `this`. Where one is absent the
// callers do without it (no combining receive, no native baseline, no device timing) or take the
// host default: data_work() and collective_buffer() below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/datatype.hpp"

namespace ringlab {

// A receive that combines each piece as it arrives: target[i] = base[i] (op) incoming[i], where
// base may be target.data(). Offered where the transport can read incoming data in place (the
// threads backend; the mpi backend's shared memory; cuda-peer where the receiver's GPU can read
// the sender's), and per peer: the executor asks can_reduce_on_receive first and otherwise
// receives into scratch and combines afterwards.
class ReceiveReduce {
 public:
  virtual ~ReceiveReduce() = default;
  virtual bool can_reduce_on_receive(int peer) const = 0;
  // Throws std::logic_error (refuse_recv_reduce) for a peer can_reduce_on_receive refuses.
  virtual RequestPtr post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag,
                                      DataType type, ReduceOp op) = 0;
  // The largest piece in which the transport hands every peer's message, out of buffers that are
  // not registered, to a receive, which combines each piece as it lands; 0 when it hands them
  // whole, or not to every peer alike. What ringlab calibrate records.
  virtual std::int64_t receive_fragment_bytes() const { return 0; }
};

// The std::logic_error of a combining receive from a peer the backend cannot combine from.
[[noreturn]] void refuse_recv_reduce(std::string_view backend, int peer);

// Memory for collective buffers from the backend: registered shared memory its peers on the host
// have mapped (the mpi backend, whose shared-memory transport then moves sends out of it with one
// copy), or device memory (device backends).
class BufferAllocation {
 public:
  virtual ~BufferAllocation() = default;
  // At least `bytes`, zero-filled. Collective: every rank calls it, in the same order, before any
  // rank uses the memory; gives up after `deadline`.
  virtual std::unique_ptr<CommBuffer> allocate_buffer(std::size_t bytes, Clock::time_point deadline) = 0;
};

// The backend's allocate_buffer, else heap memory that says the backend registers none.
std::unique_ptr<CommBuffer> collective_buffer(Communicator& comm, std::size_t bytes, Clock::time_point deadline);

// What the executor (and the bench, for its staging) does to the data itself. A device backend
// runs it on its device, queued in order with its transfers, for device pointers, and on the CPU
// for host pointers; every pointer of one call is of one kind. The host default is HostData.
class DeviceData {
 public:
  virtual ~DeviceData() = default;
  virtual bool is_device_memory(const void* pointer) const = 0;
  virtual void copy(void* target, const void* source, std::size_t bytes) = 0;  // also host <-> device
  virtual void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) = 0;
  virtual void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) = 0;
  virtual void divide(void* data, std::size_t count, DataType type, int divisor) = 0;
  // Scratch memory of the kind of `like` (device memory for device pointers).
  virtual std::unique_ptr<CommBuffer> allocate_scratch(std::size_t bytes, const void* like) = 0;
  // The executor calls begin_step() before it posts a step's transfers and end_step() once they
  // are all posted, before any wait (NCCL groups a step's sends and receives this way).
  virtual void begin_step() {}
  virtual void end_step() {}
  // Returns once everything this rank queued on its device has finished.
  virtual void synchronize() {}
};

// The host default, in this one place: memcpy, the CPU kernels of reduce.hpp, heap scratch, no
// step grouping, nothing to wait for. Holds no state.
class HostData final : public DeviceData {
 public:
  bool is_device_memory(const void* /*pointer*/) const override { return false; }
  void copy(void* target, const void* source, std::size_t bytes) override;
  void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) override;
  void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) override;
  void divide(void* data, std::size_t count, DataType type, int divisor) override;
  std::unique_ptr<CommBuffer> allocate_scratch(std::size_t bytes, const void* like) override;
};

// The host default's one instance (stateless, so shared by every rank).
DeviceData& host_data();
// comm's DeviceData where it offers one, else host_data().
DeviceData& data_work(Communicator& comm);

// Device timing: record_time_mark() queues a timestamp (a CUDA event) on the rank's stream;
// take_time_marks() waits for the last one and returns the seconds between consecutive marks
// recorded since the previous take, then forgets them. Without it the bench times by wall clock.
class DeviceTiming {
 public:
  virtual ~DeviceTiming() = default;
  virtual void record_time_mark() = 0;
  virtual std::vector<double> take_time_marks() = 0;
};

// The backend's own all-reduce, the `*-native` baseline its registry line names (mpi-native:
// MPI_Allreduce; nccl-native: ncclAllReduce).
class NativeAllreduce {
 public:
  virtual ~NativeAllreduce() = default;
  // The library call in words, e.g. "MPI_Allreduce (MPICH Version: 4.0.2)".
  virtual std::string call_name() const = 0;
  // Gives up after `deadline` (TimeoutError) where the backend can (mpi: a watchdog ends the
  // process; nccl: queued on the stream, waited on later).
  virtual void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                         Clock::time_point deadline) = 0;
};

}  // namespace ringlab
