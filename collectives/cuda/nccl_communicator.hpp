// The `nccl` backend: one process per GPU (under mpiexec), the schedules' transfers as
// ncclSend/ncclRecv on device buffers. How it runs a step:
// 1. begin_step opens an NCCL group (ncclGroupStart); the executor's posts of the step become
//    ncclSend / ncclRecv of bytes on the rank's stream; end_step closes the group (ncclGroupEnd),
//    so the step's sends and receives progress together and cannot deadlock on ordering;
// 2. requests complete in stream order: what the executor queues next on the stream (the
//    reduce kernels of DeviceCommunicator) runs after the transfers; test() asks the stream;
// 3. synchronize() waits for the stream with a deadline, polling ncclCommGetAsyncError; on an
//    NCCL error or past the deadline it calls ncclCommAbort and throws (rank, device, call,
//    ncclGetErrorString), so no rank hangs in a transfer whose peer has gone;
// 4. host memory (agreement messages, timings, the bootstrap) goes over the control
//    communicator (MPI), as do barrier and abort.
// nccl-native is ncclAllReduce on the same stream.
#pragma once

#include <nccl.h>

#include <chrono>
#include <memory>
#include <string>

#include "collectives/cuda/device_communicator.hpp"
#include "collectives/cuda/device_memory.hpp"

namespace ringlab::cuda {

// Offers ncclAllReduce as its native all-reduce besides DeviceCommunicator's capabilities.
class NcclCommunicator final : public DeviceCommunicator, public NativeAllreduce {
 public:
  // Collective over `control` (which must outlive this): rank r uses GPU `local_rank % visible
  // GPUs`, rank 0's ncclGetUniqueId reaches every rank (exchange_unique_id), ncclCommInitRank.
  NcclCommunicator(Communicator& control, int local_rank, std::chrono::milliseconds timeout);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return control_.rank(); }
  int size() const override { return control_.size(); }
  std::string_view backend_name() const override { return "nccl"; }
  cudaStream_t stream() const override { return stream_->get(); }
  DeviceContext context() const override { return {rank(), device_}; }

  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override;
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override;
  void barrier(Clock::time_point deadline) override;
  void begin_step() override;
  void end_step() override;
  void synchronize() override;
  std::string transport_description() const override;
  NativeAllreduce* native_allreduce() override { return this; }
  std::string call_name() const override { return "ncclAllReduce"; }
  // On host buffers, the control communicator's native all-reduce (std::logic_error without one).
  void allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                 Clock::time_point deadline) override;
  void abort(std::string_view reason) override;

 private:
  void check_nccl(ncclResult_t result, std::string_view call);
  // One ncclSend or ncclRecv (`post`), in the step's group or in a group of its own.
  RequestPtr post_on_device(ncclResult_t (*post)(void*, std::size_t, int, ncclComm_t, cudaStream_t), std::byte* data,
                            std::size_t bytes, int peer, std::string_view call);

  Communicator& control_;
  std::chrono::milliseconds timeout_;
  int device_ = 0;
  std::unique_ptr<Stream> stream_;
  ncclComm_t comm_ = nullptr;
  bool in_group_ = false;
};

}  // namespace ringlab::cuda
