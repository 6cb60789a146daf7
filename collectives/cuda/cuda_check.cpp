#include "collectives/cuda/cuda_check.hpp"

#include <fmt/format.h>

namespace ringlab::cuda {

std::string device_error_message(DeviceContext where, std::string_view call, std::string_view message) {
  const std::string rank = where.rank >= 0 ? fmt::format("rank {}, ", where.rank) : std::string();
  return fmt::format("{}device {}: {} failed: {}", rank, where.device, call, message);
}

void check_cuda(cudaError_t status, DeviceContext where, std::string_view call) {
  if (status == cudaSuccess) return;
  throw CudaError(device_error_message(
      where, call, fmt::format("{} ({})", cudaGetErrorString(status), cudaGetErrorName(status))));
}

}  // namespace ringlab::cuda
