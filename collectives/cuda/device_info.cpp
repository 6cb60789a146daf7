#include "collectives/cuda/device_info.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#ifdef RINGLAB_HAVE_NCCL
#include <nccl.h>
#endif

#include "collectives/cuda/device_memory.hpp"

namespace ringlab::cuda {

namespace {

std::string version_text(int version) {
  if (version <= 0) return "none";
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

}  // namespace

GpuDescription describe_gpus() {
  GpuDescription description;
  int runtime = 0;
  int driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  cudaGetLastError();
  description.cuda_version = fmt::format("runtime {}, driver {}", version_text(runtime), version_text(driver));
  const int count = visible_device_count();
  for (int device = 0; device < count; ++device) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
      cudaGetLastError();
      description.gpus.push_back(fmt::format("device {}: properties unavailable", device));
      continue;
    }
    char pci[32] = {};
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, device) != cudaSuccess) cudaGetLastError();
    description.gpus.push_back(fmt::format("{}, {} MiB, sm_{}{}, PCI {}", properties.name,
                                           properties.totalGlobalMem >> 20, properties.major, properties.minor, pci));
  }
#ifdef RINGLAB_HAVE_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    description.nccl_version = fmt::format("{}.{}.{}", nccl / 10000, nccl % 10000 / 100, nccl % 100);
#endif
  return description;
}

std::vector<GpuPeerLink> describe_gpu_peers() {
  std::vector<GpuPeerLink> links;
  const int count = visible_device_count();
  for (int from = 0; from < count; ++from)
    for (int to = 0; to < count; ++to) {
      if (from == to) continue;
      GpuPeerLink link{from, to, false, -1};
      int access = 0;
      if (cudaDeviceCanAccessPeer(&access, from, to) == cudaSuccess) link.access = access != 0;
      int rank = -1;
      if (cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, from, to) == cudaSuccess)
        link.performance_rank = rank;
      cudaGetLastError();
      links.push_back(link);
    }
  return links;
}

}  // namespace ringlab::cuda
