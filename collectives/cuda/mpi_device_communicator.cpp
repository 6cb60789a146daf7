#include "collectives/cuda/mpi_device_communicator.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include "collectives/datatype.hpp"

namespace ringlab::cuda {

namespace {

// A staged receive: MPI fills pinned memory; wait() then copies it to the device buffer.
class StagedReceive final : public Request {
 public:
  StagedReceive(RequestPtr inner, std::unique_ptr<PinnedPool::Lease> staging, std::span<std::byte> target,
                cudaStream_t stream, DeviceContext where)
      : inner_(std::move(inner)), staging_(std::move(staging)), target_(target), stream_(stream), where_(where) {}
  void wait(Clock::time_point deadline, std::string_view what) override {
    inner_->wait(deadline, what);
    finish();
  }
  bool test() override {
    if (!inner_->test()) return false;
    finish();
    return true;
  }

 private:
  void finish() {
    if (copied_) return;
    check_cuda(cudaMemcpyAsync(target_.data(), staging_->get().data, target_.size(), cudaMemcpyHostToDevice, stream_), where_,
               fmt::format("cudaMemcpyAsync({} bytes, staged receive)", target_.size()));
    check_cuda(cudaStreamSynchronize(stream_), where_, "cudaStreamSynchronize (staged receive)");
    copied_ = true;
  }
  RequestPtr inner_;
  std::unique_ptr<PinnedPool::Lease> staging_;
  std::span<std::byte> target_;
  cudaStream_t stream_;
  DeviceContext where_;
  bool copied_ = false;
};

// A staged send: the pinned copy must outlive the MPI send.
class StagedSend final : public Request {
 public:
  StagedSend(RequestPtr inner, std::unique_ptr<PinnedPool::Lease> staging)
      : inner_(std::move(inner)), staging_(std::move(staging)) {}
  void wait(Clock::time_point deadline, std::string_view what) override { inner_->wait(deadline, what); }
  bool test() override { return inner_->test(); }

 private:
  RequestPtr inner_;  // destroyed (cancelled or finished) before the staging memory goes back
  std::unique_ptr<PinnedPool::Lease> staging_;
};

}  // namespace

bool mpi_is_cuda_aware() {
  if (const char* stage = std::getenv("RINGLAB_MPI_STAGE"); stage != nullptr && std::strcmp(stage, "1") == 0)
    return false;
#if defined(MPIX_GPU_SUPPORT_CUDA)  // MPICH >= 4 declares MPIX_Query_cuda_support
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

MpiDeviceCommunicator::MpiDeviceCommunicator(Communicator& control, int local_rank, bool cuda_aware)
    : control_(control), cuda_aware_(cuda_aware) {
  const int gpus = visible_device_count();
  if (gpus == 0)
    throw CudaError(fmt::format("mpi backend with --gpu-buffers 1: rank {}: no CUDA device is visible", control.rank()));
  device_ = local_rank % gpus;
  check_cuda(cudaSetDevice(device_), context(), "cudaSetDevice");
  stream_ = std::make_unique<Stream>(context());
  pinned_ = std::make_shared<PinnedPool>(context());
}

MpiDeviceCommunicator::~MpiDeviceCommunicator() { cudaStreamSynchronize(stream()); }

RequestPtr MpiDeviceCommunicator::post_send(std::span<const std::byte> data, int peer, int tag) {
  if (!is_device_pointer(data.data())) return control_.post_send(data, peer, tag);
  synchronize();  // the data is complete once the stream has drained
  if (cuda_aware_) return control_.post_send(data, peer, tag);
  auto staging = pinned_->acquire(data.size());
  check_cuda(cudaMemcpy(staging->get().data, data.data(), data.size(), cudaMemcpyDeviceToHost), context(),
             fmt::format("cudaMemcpy({} bytes, staged send)", data.size()));
  RequestPtr inner = control_.post_send({staging->get().data, data.size()}, peer, tag);
  return std::make_unique<StagedSend>(std::move(inner), std::move(staging));
}

RequestPtr MpiDeviceCommunicator::post_recv(std::span<std::byte> data, int peer, int tag) {
  if (!is_device_pointer(data.data())) return control_.post_recv(data, peer, tag);
  synchronize();  // queued work on this memory must finish before MPI writes it
  if (cuda_aware_) return control_.post_recv(data, peer, tag);
  auto staging = pinned_->acquire(data.size());
  RequestPtr inner = control_.post_recv({staging->get().data, data.size()}, peer, tag);
  return std::make_unique<StagedReceive>(std::move(inner), std::move(staging), data, stream(), context());
}

void MpiDeviceCommunicator::barrier(Clock::time_point deadline) {
  synchronize();
  control_.barrier(deadline);
}

std::string MpiDeviceCommunicator::transport_description() const {
  return fmt::format("{}; device buffers on GPU {}: {}", control_.transport_description(), device_,
                     cuda_aware_ ? "CUDA-aware MPI (device pointers passed to MPI messages)"
                                 : "staged through pinned host memory (MPI is not CUDA-aware, or RINGLAB_MPI_STAGE=1)");
}

void MpiDeviceCommunicator::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                                      Clock::time_point deadline) {
  NativeAllreduce& control = *control_.native_allreduce();  // offered only where the control has one
  if (!is_device_pointer(recv)) return control.allreduce(send, recv, count, type, op, deadline);
  // MPI_Allreduce's float16/bfloat16 operators run on the CPU, so device data is always staged.
  const std::size_t bytes = count * element_size(type);
  auto staging = pinned_->acquire(bytes);
  copy(staging->get().data, send, bytes);
  control.allreduce(staging->get().data, staging->get().data, count, type, op, deadline);
  copy(recv, staging->get().data, bytes);
}

}  // namespace ringlab::cuda
