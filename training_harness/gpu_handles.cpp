#include "training_harness/gpu_handles.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include "training_harness/gpu_parameters.hpp"

namespace ringlab::training {

void check_cudnn(cudnnStatus_t status, cuda::DeviceContext where, std::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw cuda::CudaError(cuda::device_error_message(
      where, call, fmt::format("{} (cudnn status {})", cudnnGetErrorString(status), static_cast<int>(status))));
}

std::string_view cublas_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "unknown cuBLAS status";
}

void check_cublas(cublasStatus_t status, cuda::DeviceContext where, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw cuda::CudaError(cuda::device_error_message(
      where, call, fmt::format("{} (cublas status {})", cublas_status_name(status), static_cast<int>(status))));
}

namespace {

template <typename Function>
void resolve(void* library, const char* symbol, Function& function, cuda::DeviceContext where) {
  function = reinterpret_cast<Function>(dlsym(library, symbol));
  if (!function)
    throw cuda::CudaError(cuda::device_error_message(where, fmt::format("dlsym({}, {})", RINGLAB_CUBLAS_SONAME, symbol),
                                                     "the cuBLAS library has no such function"));
}

}  // namespace

CublasLibrary::CublasLibrary(cuda::DeviceContext where) {
  library_ = dlopen(RINGLAB_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* error = dlerror();
    throw cuda::CudaError(cuda::device_error_message(
        where, fmt::format("dlopen({})", RINGLAB_CUBLAS_SONAME),
        fmt::format("{}; put the folder holding it (the CUDA toolkit's lib64, or the nvidia.cublas pip wheel's lib) "
                    "on LD_LIBRARY_PATH",
                    error ? error : "not found")));
  }
  try {
    resolve(library_, "cublasCreate_v2", create, where);
    resolve(library_, "cublasDestroy_v2", destroy, where);
    resolve(library_, "cublasSetStream_v2", set_stream, where);
    resolve(library_, "cublasSetMathMode", set_math_mode, where);
    resolve(library_, "cublasGetVersion_v2", get_version, where);
    resolve(library_, "cublasSgemm_v2", sgemm, where);
  } catch (...) {
    dlclose(library_);
    throw;
  }
}

CublasLibrary::~CublasLibrary() { dlclose(library_); }

CudnnHandle::CudnnHandle(cuda::DeviceContext where, cudaStream_t stream) {
  check_cudnn(cudnnCreate(&handle_), where, "cudnnCreate");
  const cudnnStatus_t set = cudnnSetStream(handle_, stream);
  if (set != CUDNN_STATUS_SUCCESS) {
    cudnnDestroy(handle_);
    check_cudnn(set, where, "cudnnSetStream");
  }
}

CudnnHandle::~CudnnHandle() { cudnnDestroy(handle_); }

CublasHandle::CublasHandle(const CublasLibrary& library, cuda::DeviceContext where, cudaStream_t stream)
    : library_(library) {
  check_cublas(library.create(&handle_), where, "cublasCreate");
  // Full float32 arithmetic: no TF32 tensor-core rounding (CUBLAS_DEFAULT_MATH).
  cublasStatus_t set = library.set_stream(handle_, stream);
  if (set == CUBLAS_STATUS_SUCCESS) set = library.set_math_mode(handle_, CUBLAS_DEFAULT_MATH);
  if (set != CUBLAS_STATUS_SUCCESS) {
    library.destroy(handle_);
    check_cublas(set, where, "cublasSetStream/cublasSetMathMode");
  }
}

CublasHandle::~CublasHandle() { library_.destroy(handle_); }

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
