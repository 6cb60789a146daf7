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

// What the CUDA runtime says about one ordered pair of visible GPUs.
struct GpuPeerLink {
  int from = 0;
  int to = 0;
  bool access = false;        // cudaDeviceCanAccessPeer
  int performance_rank = -1;  // cudaDevP2PAttrPerformanceRank (lower is faster); -1 unknown
};

// Every ordered pair of visible GPUs; empty with fewer than two. Never throws.
std::vector<GpuPeerLink> describe_gpu_peers();

}  // namespace ringlab::cuda
