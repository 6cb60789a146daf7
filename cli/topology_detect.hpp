// `ringlab topology detect`: this machine's processors and devices through hwloc, and the
// host-shm topology they imply (the bandwidths stay at the preset's defaults: uncalibrated).
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

struct DetectedHost {
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int processing_units = 0;
  unsigned long long memory_bytes = 0;
  std::vector<PciDevice> pci_devices;
  std::string gpus;  // what is known about GPUs, in words
};

// Throws std::runtime_error when hwloc cannot load the topology, std::invalid_argument when this
// ringlab was built without hwloc.
DetectedHost detect_host();

}  // namespace ringlab::cli
