// Errors from the CUDA runtime and NCCL as exceptions whose message names the rank, the device,
// the call and the library's own message (cudaGetErrorString / ncclGetErrorString).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace ringlab::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a call ran: rank -1 when no rank is involved (device queries).
struct DeviceContext {
  int rank = -1;
  int device = 0;
};

// "rank 3, device 0: cudaMalloc(268435456 bytes) failed: out of memory (cudaErrorMemoryAllocation)".
std::string device_error_message(DeviceContext where, std::string_view call, std::string_view message);

// Throws CudaError for anything but cudaSuccess.
void check_cuda(cudaError_t status, DeviceContext where, std::string_view call);

}  // namespace ringlab::cuda
