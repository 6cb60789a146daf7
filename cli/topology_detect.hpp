// `ringlab topology detect`: this machine's processors and devices through hwloc, its GPUs and
// their peer access through the CUDA runtime (CUDA builds), and the topology they imply: the GPUs'
// when there are two or more, else host-shm (the bandwidths stay at the presets' defaults:
// uncalibrated).
#pragma once

#include <string>
#include <vector>

namespace ringlab::cli {

struct PciDevice {
  std::string bus_id;  // domain:bus:device.function
  unsigned vendor_id = 0;
  unsigned device_id = 0;
  unsigned class_id = 0;
  std::string name;  // empty when hwloc has none
};

struct GpuPeer {  // the CUDA runtime's view of one ordered GPU pair
  int from = 0;
  int to = 0;
  bool access = false;
  int performance_rank = -1;  // -1: unknown
};

struct DetectedHost {
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int processing_units = 0;
  unsigned long long memory_bytes = 0;
  std::vector<PciDevice> pci_devices;
  std::string gpus;  // what is known about GPUs, in words
  std::vector<std::string> gpu_list;  // one line per visible GPU (CUDA builds)
  std::vector<GpuPeer> gpu_peers;     // every ordered pair (CUDA builds, 2 GPUs or more)
};

// Throws std::runtime_error when hwloc cannot load the topology, std::invalid_argument when this
// ringlab was built without hwloc.
DetectedHost detect_host();

}  // namespace ringlab::cli
