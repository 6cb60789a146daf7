#include "cli/topology_detect.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#ifdef RINGLAB_HAVE_HWLOC
#include <hwloc.h>
#endif
#ifdef RINGLAB_HAVE_CUDA
#include "collectives/cuda/device_info.hpp"
#endif

namespace ringlab::cli {

#ifdef RINGLAB_HAVE_HWLOC
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

HwlocTopology load_hwloc_topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw std::runtime_error("hwloc_topology_init failed");
  HwlocTopology topology(raw);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(raw) != 0) throw std::runtime_error("hwloc_topology_load failed: cannot read this machine's topology");
  return topology;
}

int count_of(hwloc_topology_t topology, hwloc_obj_type_t type) {
  const int count = hwloc_get_nbobjs_by_type(topology, type);
  return count < 0 ? 0 : count;
}

}  // namespace

DetectedHost detect_host() {
  const HwlocTopology topology = load_hwloc_topology();
  DetectedHost host;
  host.packages = count_of(topology.get(), HWLOC_OBJ_PACKAGE);
  host.numa_nodes = count_of(topology.get(), HWLOC_OBJ_NUMANODE);
  host.cores = count_of(topology.get(), HWLOC_OBJ_CORE);
  host.processing_units = count_of(topology.get(), HWLOC_OBJ_PU);
  host.memory_bytes = hwloc_get_root_obj(topology.get())->total_memory;
  for (hwloc_obj_t device = hwloc_get_next_pcidev(topology.get(), nullptr); device != nullptr;
       device = hwloc_get_next_pcidev(topology.get(), device)) {
    const auto& pci = device->attr->pcidev;
    host.pci_devices.push_back({fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci.domain, pci.bus, pci.dev, pci.func),
                                pci.vendor_id, pci.device_id, pci.class_id, device->name ? device->name : ""});
  }
#ifdef RINGLAB_HAVE_CUDA
  const cuda::GpuDescription gpus = cuda::describe_gpus();
  host.gpu_list = gpus.gpus;
  host.gpus = fmt::format("{} visible to the CUDA runtime ({}); NVML not used", gpus.gpus.size(), gpus.cuda_version);
  for (const cuda::GpuPeerLink& link : cuda::describe_gpu_peers())
    host.gpu_peers.push_back({link.from, link.to, link.access, link.performance_rank});
#else
  host.gpus = "not detected: built without CUDA support";
#endif
  return host;
}
#else
DetectedHost detect_host() {
  throw std::invalid_argument(
      "this ringlab was built without hwloc; install libhwloc-dev (scripts/install-deps.sh) and reconfigure");
}
#endif

}  // namespace ringlab::cli
