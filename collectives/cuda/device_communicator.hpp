// The part every device backend shares: the executor's data work (copies, reductions, the
// average's division, scratch) on the rank's own stream when the pointers are device memory,
// and the host default (HostData) when they are host memory (control messages, timings).
// cuda-peer, nccl and mpi on device buffers derive from it and supply the stream and the device.
#pragma once

#include <cuda_runtime_api.h>

#include "collectives/capabilities.hpp"
#include "collectives/communicator.hpp"
#include "collectives/cuda/cuda_check.hpp"
#include "collectives/cuda/device_memory.hpp"

namespace ringlab::cuda {

// Offers device buffers (BufferAllocation), the data work on the stream (DeviceData) and CUDA-event
// timing (DeviceTiming).
class DeviceCommunicator : public Communicator, public BufferAllocation, public DeviceData, public DeviceTiming {
 public:
  // The rank's stream and where it runs.
  virtual cudaStream_t stream() const = 0;
  virtual DeviceContext context() const = 0;

  BufferAllocation* buffer_allocation() override { return this; }
  DeviceData* device_data() override { return this; }
  DeviceTiming* device_timing() override { return this; }

  std::unique_ptr<CommBuffer> allocate_buffer(std::size_t bytes, Clock::time_point deadline) override;
  bool is_device_memory(const void* pointer) const override;
  void copy(void* target, const void* source, std::size_t bytes) override;
  void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) override;
  void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) override;
  void divide(void* data, std::size_t count, DataType type, int divisor) override;
  std::unique_ptr<CommBuffer> allocate_scratch(std::size_t bytes, const void* like) override;
  void synchronize() override;
  void record_time_mark() override;
  std::vector<double> take_time_marks() override;

 private:
  std::unique_ptr<TimeMarks> marks_;  // made on first use (context() is not callable in the constructor)
};

}  // namespace ringlab::cuda
