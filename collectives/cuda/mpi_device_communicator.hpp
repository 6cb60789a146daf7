// The `mpi` backend on device buffers (`ringlab bench --backend mpi --gpu-buffers 1`): the GPU
// parameter server over MPI, one process per GPU (rank r on GPU local rank % GPUs).
// 1. At start the MPI library is asked whether it is CUDA-aware (MPIX_Query_cuda_support where
//    it exists; RINGLAB_MPI_STAGE=1 forces staging); the transport line of reports says which.
// 2. CUDA-aware: device pointers go to MPI as they are, over MPI messages (ringlab's own
//    shared-memory transport copies with the CPU, so it is not used).
// 3. Otherwise each device transfer is staged through page-locked host memory: a send copies
//    device -> pinned, then sends; a receive lands in pinned memory and its wait copies it to the
//    device.
// 4. Before a device buffer is handed to MPI or staged, the rank's stream is drained, since MPI
//    reads and writes outside stream order; reductions run on the stream (DeviceCommunicator).
// Host memory (agreement, timings) and mpi-native go through the control communicator;
// mpi-native on device buffers is staged both ways.
#pragma once

#include <memory>
#include <string>

#include "collectives/cuda/device_communicator.hpp"
#include "collectives/cuda/device_memory.hpp"

namespace ringlab::cuda {

// True when the MPI library says it can take CUDA device pointers (and RINGLAB_MPI_STAGE is not 1).
bool mpi_is_cuda_aware();

// Offers the control communicator's native all-reduce (staged for device buffers) besides
// DeviceCommunicator's capabilities.
class MpiDeviceCommunicator final : public DeviceCommunicator, public NativeAllreduce {
 public:
  // `control` is the MPI communicator (over MPI messages only when `cuda_aware`); it must outlive this.
  MpiDeviceCommunicator(Communicator& control, int local_rank, bool cuda_aware);
  ~MpiDeviceCommunicator() override;

  int rank() const override { return control_.rank(); }
  int size() const override { return control_.size(); }
  std::string_view backend_name() const override { return "mpi"; }
  cudaStream_t stream() const override { return stream_->get(); }
  DeviceContext context() const override { return {rank(), device_}; }

  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override;
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override;
  void barrier(Clock::time_point deadline) override;
  std::string transport_description() const override;
  NativeAllreduce* native_allreduce() override { return control_.native_allreduce() != nullptr ? this : nullptr; }
  std::string call_name() const override { return control_.native_allreduce()->call_name(); }
  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                 Clock::time_point deadline) override;
  void abort(std::string_view reason) override { control_.abort(reason); }

 private:
  Communicator& control_;
  bool cuda_aware_;
  int device_ = 0;
  std::unique_ptr<Stream> stream_;
  std::shared_ptr<PinnedPool> pinned_;
};

}  // namespace ringlab::cuda
