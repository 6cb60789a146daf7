// RAII and error checks for the GPU compute backend: cuDNN and cuBLAS handles, cuDNN descriptors
// (created once, set per call) and device buffers that grow on demand. Every failing status
// throws cuda::CudaError naming the device, the call and the status (cudnnGetErrorString; the
// cuBLAS status name).
//
// cuBLAS is opened at run time (dlopen of RINGLAB_CUBLAS_SONAME, CublasLibrary) when a GPU backend
// is made: linked, libcublas and libcublasLt (600 MB) would be mapped and relocated at every start
// of ringlab, a noticeable start-up cost, though only --compute gpu uses them. cuDNN's
// libcudnn.so is a small loader that opens its parts on first use, so it is linked.
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <string_view>

#include "collectives/cuda/cuda_check.hpp"
#include "collectives/cuda/device_memory.hpp"

namespace ringlab::training {

// "device 0: cudnnConvolutionForward failed: CUDNN_STATUS_BAD_PARAM (cudnn status 2000)".
void check_cudnn(cudnnStatus_t status, cuda::DeviceContext where, std::string_view call);
// "CUBLAS_STATUS_INVALID_VALUE"; "unknown cuBLAS status" for a value cuBLAS 13 does not define.
std::string_view cublas_status_name(cublasStatus_t status);
// "rank 2, device 1: cublasSgemm failed: CUBLAS_STATUS_INVALID_VALUE (cublas status 7)".
void check_cublas(cublasStatus_t status, cuda::DeviceContext where, std::string_view call);

// The cuBLAS functions the backend calls, from the library opened at run time; dlclose on
// destruction. Throws cuda::CudaError naming the library and dlerror() when it cannot be opened.
class CublasLibrary {
 public:
  explicit CublasLibrary(cuda::DeviceContext where);
  ~CublasLibrary();
  CublasLibrary(const CublasLibrary&) = delete;
  CublasLibrary& operator=(const CublasLibrary&) = delete;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasGetVersion_v2) get_version = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;

 private:
  void* library_ = nullptr;
};

class CudnnHandle {
 public:
  CudnnHandle(cuda::DeviceContext where, cudaStream_t stream);
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

class CublasHandle {
 public:
  CublasHandle(const CublasLibrary& library, cuda::DeviceContext where, cudaStream_t stream);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  const CublasLibrary& library_;
  cublasHandle_t handle_ = nullptr;
};

// One cuDNN descriptor type: Create in the constructor, Destroy in the destructor.
template <typename Descriptor, cudnnStatus_t (*create)(Descriptor*), cudnnStatus_t (*destroy)(Descriptor)>
class CudnnDescriptor {
 public:
  explicit CudnnDescriptor(cuda::DeviceContext where) { check_cudnn(create(&descriptor_), where, "cudnnCreate*Descriptor"); }
  ~CudnnDescriptor() { destroy(descriptor_); }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  Descriptor get() const { return descriptor_; }

 private:
  Descriptor descriptor_ = nullptr;
};

using TensorDescriptor =
    CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDescriptor =
    CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor = CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                                              cudnnDestroyConvolutionDescriptor>;
using PoolingDescriptor =
    CudnnDescriptor<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, cudnnDestroyPoolingDescriptor>;
using ActivationDescriptor = CudnnDescriptor<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
                                             cudnnDestroyActivationDescriptor>;

// Device memory reused across calls: reallocated (grown_capacity, gpu_parameters.hpp) only when a
// call needs more than it holds; never shrinks.
class GrowingDeviceBuffer {
 public:
  explicit GrowingDeviceBuffer(cuda::DeviceContext where) : where_(where) {}
  // At least `bytes` bytes; the contents are not kept across a growth.
  void* reserve(std::size_t bytes);
  std::size_t capacity() const { return capacity_; }

 private:
  cuda::DeviceContext where_;
  std::unique_ptr<cuda::DeviceBuffer> buffer_;
  std::size_t capacity_ = 0;
};

}  // namespace ringlab::training
