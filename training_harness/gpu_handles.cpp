#include "gpu_handles.hpp"

#include <fmt/format.h>

#include "gpu_parameters.hpp"

namespace ringlab::training {

void check_cudnn(cudnnStatus_t status, cuda::DeviceContext where, std::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw cuda::CudaError(cuda::device_error_message(
      where, call, fmt::format("{} (cudnn status {})", cudnnGetErrorString(status), static_cast<int>(status))));
}

void check_cublas(cublasStatus_t status, cuda::DeviceContext where, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw cuda::CudaError(cuda::device_error_message(
      where, call, fmt::format("{} ({})", cublasGetStatusName(status), cublasGetStatusString(status))));
}

CudnnHandle::CudnnHandle(cuda::DeviceContext where, cudaStream_t stream) {
  check_cudnn(cudnnCreate(&handle_), where, "cudnnCreate");
  const cudnnStatus_t set = cudnnSetStream(handle_, stream);
  if (set != CUDNN_STATUS_SUCCESS) {
    cudnnDestroy(handle_);
    check_cudnn(set, where, "cudnnSetStream");
  }
}

CudnnHandle::~CudnnHandle() { cudnnDestroy(handle_); }

CublasHandle::CublasHandle(cuda::DeviceContext where, cudaStream_t stream) {
  check_cublas(cublasCreate(&handle_), where, "cublasCreate");
  // Full float32 arithmetic: no TF32 tensor-core rounding (CUBLAS_DEFAULT_MATH).
  cublasStatus_t set = cublasSetStream(handle_, stream);
  if (set == CUBLAS_STATUS_SUCCESS) set = cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH);
  if (set != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle_);
    check_cublas(set, where, "cublasSetStream/cublasSetMathMode");
  }
}

CublasHandle::~CublasHandle() { cublasDestroy(handle_); }

void* GrowingDeviceBuffer::reserve(std::size_t bytes) {
  if (bytes > capacity_ || !buffer_) {
    const std::size_t grown = grown_capacity(capacity_, bytes);
    buffer_.reset();  // free before allocating the larger one
    capacity_ = 0;
    buffer_ = std::make_unique<cuda::DeviceBuffer>(grown == 0 ? 1 : grown, where_);
    capacity_ = grown;
  }
  return buffer_->bytes().data();
}

}  // namespace ringlab::training
