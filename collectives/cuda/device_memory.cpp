#include "collectives/cuda/device_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace ringlab::cuda {

ScopedDevice::ScopedDevice(DeviceContext where) {
  check_cuda(cudaGetDevice(&previous_), where, "cudaGetDevice");
  if (previous_ != where.device) {
    check_cuda(cudaSetDevice(where.device), where, "cudaSetDevice");
    changed_ = true;
  }
}

ScopedDevice::ScopedDevice(DeviceContext where, std::nothrow_t) noexcept {
  if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != where.device)
    changed_ = cudaSetDevice(where.device) == cudaSuccess;
}

ScopedDevice::~ScopedDevice() {
  if (changed_) cudaSetDevice(previous_);
}

Stream::Stream(DeviceContext where) : where_(where) {
  const ScopedDevice device(where);
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), where, "cudaStreamCreateWithFlags");
}

Stream::~Stream() {
  const ScopedDevice device(where_, std::nothrow);
  cudaStreamSynchronize(stream_);
  cudaStreamDestroy(stream_);
}

EventPool::~EventPool() {
  for (cudaEvent_t event : free_) cudaEventDestroy(event);
}

std::unique_ptr<EventPool::Lease> EventPool::acquire() {
  cudaEvent_t event = nullptr;
  {
    const std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      event = free_.back();
      free_.pop_back();
    }
  }
  if (event == nullptr) {
    const ScopedDevice device(where_);
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), where_, "cudaEventCreateWithFlags");
  }
  return std::make_unique<Lease>(shared_from_this(), event);
}

void EventPool::release(cudaEvent_t event) {
  const std::lock_guard lock(mutex_);
  free_.push_back(event);
}

PinnedPool::~PinnedPool() {
  for (const Block& block : free_) cudaFreeHost(block.data);
}

std::unique_ptr<PinnedPool::Lease> PinnedPool::acquire(std::size_t bytes) {
  {
    const std::lock_guard lock(mutex_);
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->bytes >= bytes && (best == free_.end() || it->bytes < best->bytes)) best = it;
    if (best != free_.end()) {
      const Block block = *best;
      free_.erase(best);
      return std::make_unique<Lease>(shared_from_this(), block);
    }
  }
  void* memory = nullptr;
  check_cuda(cudaMallocHost(&memory, std::max<std::size_t>(bytes, 1)), where_,
             fmt::format("cudaMallocHost({} bytes)", bytes));
  return std::make_unique<Lease>(shared_from_this(), Block{static_cast<std::byte*>(memory), std::max<std::size_t>(bytes, 1)});
}

void PinnedPool::release(Block block) {
  const std::lock_guard lock(mutex_);
  free_.push_back(block);
}

TimeMarks::~TimeMarks() {
  for (cudaEvent_t event : events_) cudaEventDestroy(event);
}

void TimeMarks::record(cudaStream_t stream) {
  if (recorded_ == events_.size()) {
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreate(&event), where_, "cudaEventCreate (timing)");
    events_.push_back(event);
  }
  check_cuda(cudaEventRecord(events_[recorded_], stream), where_, "cudaEventRecord (timing)");
  ++recorded_;
}

std::vector<double> TimeMarks::take() {
  std::vector<double> seconds;
  if (recorded_ >= 2) {
    check_cuda(cudaEventSynchronize(events_[recorded_ - 1]), where_, "cudaEventSynchronize (timing)");
    for (std::size_t i = 1; i < recorded_; ++i) {
      float milliseconds = 0;
      check_cuda(cudaEventElapsedTime(&milliseconds, events_[i - 1], events_[i]), where_, "cudaEventElapsedTime");
      seconds.push_back(static_cast<double>(milliseconds) * 1e-3);
    }
  }
  recorded_ = 0;
  return seconds;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, DeviceContext where, cudaStream_t stream)
    : where_(where), stream_(stream), bytes_(bytes) {
  if (bytes == 0) return;
  const ScopedDevice device(where);
  void* memory = nullptr;
  const std::string call = fmt::format("{}({} bytes)", stream ? "cudaMallocAsync" : "cudaMalloc", bytes);
  check_cuda(stream ? cudaMallocAsync(&memory, bytes, stream) : cudaMalloc(&memory, bytes), where, call);
  data_ = static_cast<std::byte*>(memory);
  // Without a stream, the memset runs on the legacy default stream, which the ranks' non-blocking
  // streams do not wait for: finish it before anyone uses the memory.
  const cudaError_t cleared = stream ? cudaMemsetAsync(memory, 0, bytes, stream)
                                     : (cudaMemset(memory, 0, bytes) == cudaSuccess ? cudaDeviceSynchronize()
                                                                                    : cudaGetLastError());
  if (cleared != cudaSuccess) {
    stream ? cudaFreeAsync(memory, stream) : cudaFree(memory);
    check_cuda(cleared, where, "cudaMemset");
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ == nullptr) return;
  const ScopedDevice device(where_, std::nothrow);
  if (stream_ != nullptr) {
    cudaFreeAsync(data_, stream_);  // after everything queued on the stream that uses it
  } else {
    cudaDeviceSynchronize();  // no stream of the device may still read or write it
    cudaFree(data_);
  }
}

std::string DeviceBuffer::description() const {
  return fmt::format("device memory on GPU {} (cudaMalloc)", where_.device);
}

bool is_device_pointer(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state of the failed query
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

int local_rank_from_environment(int fallback) {
  for (const char* variable : {"MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"})
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  return fallback;
}

int visible_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace ringlab::cuda
