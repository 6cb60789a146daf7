#include "collectives/cuda/nccl_communicator.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>
#include <thread>

#include "collectives/cuda/nccl_bootstrap.hpp"

namespace ringlab::cuda {

namespace {

ncclDataType_t nccl_type(DataType type) {
  switch (type) {
    case DataType::float32: return ncclFloat32;
    case DataType::float64: return ncclFloat64;
    case DataType::float16: return ncclFloat16;
    case DataType::bfloat16: return ncclBfloat16;
    case DataType::int32: return ncclInt32;
    case DataType::int64: return ncclInt64;
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::prod: return ncclProd;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::avg: return ncclAvg;
  }
  return ncclSum;
}

// Completes in stream order: the executor's next work on the stream runs after the transfer.
class NcclRequest final : public Request {
 public:
  explicit NcclRequest(cudaStream_t stream) : stream_(stream) {}
  void wait(Clock::time_point, std::string_view) override {}
  bool test() override { return cudaStreamQuery(stream_) == cudaSuccess; }

 private:
  cudaStream_t stream_;
};

}  // namespace

NcclCommunicator::NcclCommunicator(Communicator& control, int local_rank, std::chrono::milliseconds timeout)
    : control_(control), timeout_(timeout) {
  const int gpus = visible_device_count();
  if (gpus == 0)
    throw CudaError(fmt::format("nccl backend: rank {}: no CUDA device is visible; the nccl backend needs one GPU per "
                                "process",
                                control.rank()));
  device_ = local_rank % gpus;
  check_cuda(cudaSetDevice(device_), context(), "cudaSetDevice");
  stream_ = std::make_unique<Stream>(context());
  UniqueIdBytes id{};
  if (control.rank() == 0) {
    ncclUniqueId unique{};
    check_nccl(ncclGetUniqueId(&unique), "ncclGetUniqueId");
    std::memcpy(id.data(), &unique, sizeof unique);
  }
  id = exchange_unique_id(control, id, timeout);
  ncclUniqueId unique{};
  std::memcpy(&unique, id.data(), sizeof unique);
  check_nccl(ncclCommInitRank(&comm_, control.size(), unique, control.rank()),
             fmt::format("ncclCommInitRank({} ranks)", control.size()));
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_ == nullptr) return;
  ncclResult_t pending = ncclSuccess;
  if (ncclCommGetAsyncError(comm_, &pending) == ncclSuccess && pending == ncclSuccess &&
      cudaStreamQuery(stream()) == cudaSuccess)
    ncclCommDestroy(comm_);
  else
    ncclCommAbort(comm_);  // work still queued or failed: never block in a destructor
}

void NcclCommunicator::check_nccl(ncclResult_t result, std::string_view call) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  const std::string last = comm_ != nullptr ? ncclGetLastError(comm_) : "";
  const std::string message =
      device_error_message(context(), call, last.empty() ? ncclGetErrorString(result)
                                                         : fmt::format("{} ({})", ncclGetErrorString(result), last));
  if (comm_ != nullptr) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  throw CudaError(message);
}

RequestPtr NcclCommunicator::post_on_device(ncclResult_t (*post)(void*, std::size_t, int, ncclComm_t, cudaStream_t),
                                            std::byte* data, std::size_t bytes, int peer, std::string_view call) {
  if (!in_group_) check_nccl(ncclGroupStart(), "ncclGroupStart");
  check_nccl(post(data, bytes, peer, comm_, stream()), fmt::format("{}({} bytes, peer rank {})", call, bytes, peer));
  if (!in_group_) check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  return std::make_unique<NcclRequest>(stream());
}

RequestPtr NcclCommunicator::post_send(std::span<const std::byte> data, int peer, int tag) {
  if (!is_device_pointer(data.data())) return control_.post_send(data, peer, tag);
  auto send = [](void* buffer, std::size_t bytes, int to, ncclComm_t comm, cudaStream_t on) {
    return ncclSend(buffer, bytes, ncclUint8, to, comm, on);
  };
  return post_on_device(send, const_cast<std::byte*>(data.data()), data.size(), peer, "ncclSend");
}

RequestPtr NcclCommunicator::post_recv(std::span<std::byte> data, int peer, int tag) {
  if (!is_device_pointer(data.data())) return control_.post_recv(data, peer, tag);
  auto receive = [](void* buffer, std::size_t bytes, int from, ncclComm_t comm, cudaStream_t on) {
    return ncclRecv(buffer, bytes, ncclUint8, from, comm, on);
  };
  return post_on_device(receive, data.data(), data.size(), peer, "ncclRecv");
}

void NcclCommunicator::begin_step() {
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  in_group_ = true;
}

void NcclCommunicator::end_step() {
  in_group_ = false;
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

void NcclCommunicator::synchronize() {
  const auto deadline = Clock::now() + timeout_;
  while (true) {
    const cudaError_t status = cudaStreamQuery(stream());
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) check_cuda(status, context(), "cudaStreamQuery");
    ncclResult_t pending = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(comm_, &pending), "ncclCommGetAsyncError");
    check_nccl(pending, "an NCCL operation (asynchronous error)");
    if (Clock::now() > deadline) {
      ncclCommAbort(comm_);
      comm_ = nullptr;
      throw TimeoutError(device_error_message(
          context(), "synchronize",
          fmt::format("NCCL operations did not finish within {} ms (did a peer not post the matching call?); the "
                      "NCCL communicator was aborted",
                      timeout_.count())));
    }
    std::this_thread::yield();
  }
}

void NcclCommunicator::barrier(Clock::time_point deadline) {
  synchronize();
  control_.barrier(deadline);
}

std::string NcclCommunicator::transport_description() const {
  int version = 0;
  ncclGetVersion(&version);
  return fmt::format("NCCL {}.{}.{} ncclSend/ncclRecv grouped per step, one process per GPU (this rank: GPU {})",
                     version / 10000, version % 10000 / 100, version % 100, device_);
}

void NcclCommunicator::allreduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                                 Clock::time_point deadline) {
  if (!is_device_pointer(recv)) {
    NativeAllreduce* control = control_.native_allreduce();
    if (control == nullptr)
      throw std::logic_error(fmt::format("the {} backend has no native all-reduce for host buffers",
                                         control_.backend_name()));
    return control->allreduce(send, recv, count, type, op, deadline);
  }
  check_nccl(ncclAllReduce(send, recv, count, nccl_type(type), nccl_op(op), comm_, stream()),
             fmt::format("ncclAllReduce({} x {} {})", count, name_of(type), name_of(op)));
}

void NcclCommunicator::abort(std::string_view reason) {
  if (comm_ != nullptr) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  control_.abort(reason);
}

}  // namespace ringlab::cuda
