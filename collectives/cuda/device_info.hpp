// What a report says about the GPUs: models with memory and compute capability, the CUDA
// driver and runtime versions, the NCCL version. Never throws: without a device or driver the
// list is empty and the versions say so.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ringlab::cuda {

struct GpuDescription {
  std::vector<std::string> gpus;  // "NVIDIA H200, 140 GiB, sm_90, PCI 0000:1b:00.0"
  std::string cuda_version;       // "runtime 13.0, driver 13.0" (driver "none" without one)
  std::optional<std::string> nccl_version;  // "2.28.3"; empty when built without NCCL
};

GpuDescription describe_gpus();

}  // namespace ringlab::cuda
