// RAII for CUDA resources: the current device, streams, events and device buffers. Every
// failure throws CudaError naming the rank, the device and the call (cuda_check.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/cuda/cuda_check.hpp"

namespace ringlab::cuda {

// Makes `where.device` current for this thread and restores the previous device on exit.
class ScopedDevice {
 public:
  explicit ScopedDevice(DeviceContext where);
  // For destructors: never throws; a failure to switch leaves the current device as it was.
  ScopedDevice(DeviceContext where, std::nothrow_t) noexcept;
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

// A non-blocking stream on `where.device`.
class Stream {
 public:
  explicit Stream(DeviceContext where);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  DeviceContext where_;
  cudaStream_t stream_ = nullptr;
};

// An item borrowed from a pool (events, pinned blocks), given back when the lease is destroyed;
// the lease keeps the pool alive.
template <typename Pool, typename Item>
class PoolLease {
 public:
  PoolLease(std::shared_ptr<Pool> pool, Item item) : pool_(std::move(pool)), item_(item) {}
  ~PoolLease() { pool_->release(item_); }
  PoolLease(const PoolLease&) = delete;
  PoolLease& operator=(const PoolLease&) = delete;
  const Item& get() const { return item_; }

 private:
  std::shared_ptr<Pool> pool_;
  Item item_;
};

// Events without timing, recycled: creating one per transfer would cost more than a small copy.
class EventPool : public std::enable_shared_from_this<EventPool> {
 public:
  using Lease = PoolLease<EventPool, cudaEvent_t>;
  explicit EventPool(DeviceContext where) : where_(where) {}
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  // An event of this pool's device, returned to the pool when the lease is destroyed.
  std::unique_ptr<Lease> acquire();
  int device() const { return where_.device; }

 private:
  friend Lease;
  void release(cudaEvent_t event);
  DeviceContext where_;
  std::mutex mutex_;
  std::vector<cudaEvent_t> free_;
};


// Timestamps on a stream: timing events, created as needed and reused after take().
class TimeMarks {
 public:
  explicit TimeMarks(DeviceContext where) : where_(where) {}
  ~TimeMarks();
  TimeMarks(const TimeMarks&) = delete;
  TimeMarks& operator=(const TimeMarks&) = delete;
  void record(cudaStream_t stream);
  // Waits for the last mark; seconds between consecutive marks (empty with fewer than two).
  std::vector<double> take();

 private:
  DeviceContext where_;
  std::vector<cudaEvent_t> events_;
  std::size_t recorded_ = 0;
};

// Page-locked host memory for staging device data (cudaMallocHost), recycled: buffers return to
// the pool when their lease ends; the pool lives as long as any lease.
class PinnedPool : public std::enable_shared_from_this<PinnedPool> {
 public:
  struct Block {
    std::byte* data;
    std::size_t bytes;
  };
  using Lease = PoolLease<PinnedPool, Block>;
  explicit PinnedPool(DeviceContext where) : where_(where) {}
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;
  // At least `bytes` bytes (the smallest free buffer that fits, or a new one).
  std::unique_ptr<Lease> acquire(std::size_t bytes);

 private:
  friend Lease;
  void release(Block block);
  DeviceContext where_;
  std::mutex mutex_;
  std::vector<Block> free_;
};


// Zero-filled device memory. With a stream, allocation and release are stream-ordered
// (cudaMallocAsync / cudaFreeAsync: scratch that only that stream touches); without, plain
// cudaMalloc / cudaFree.
class DeviceBuffer final : public CommBuffer {
 public:
  DeviceBuffer(std::size_t bytes, DeviceContext where, cudaStream_t stream = nullptr);
  ~DeviceBuffer() override;
  std::span<std::byte> bytes() override { return {data_, bytes_}; }
  bool on_device() const override { return true; }
  std::string description() const override;

 private:
  DeviceContext where_;
  cudaStream_t stream_;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// True when `pointer` is device (or managed) memory; host memory, registered or not, is false.
bool is_device_pointer(const void* pointer);

// Number of visible CUDA devices; 0 when there is no device or no driver (never throws).
int visible_device_count();

// The node-local rank the launcher gives (MPI_LOCALRANKID, OMPI_COMM_WORLD_LOCAL_RANK,
// SLURM_LOCALID), or `fallback`: backends with one process per GPU use it to pick the GPU.
int local_rank_from_environment(int fallback);

}  // namespace ringlab::cuda
