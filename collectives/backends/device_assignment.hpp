// Which GPU each rank of a single-process device backend (cuda-peer) runs on. Pure: the caller
// passes how many devices it sees, so the rules are tested without a GPU.
#pragma once

#include <vector>

namespace ringlab {

struct DeviceLayout {
  int ranks = 1;          // --ranks
  int ranks_per_gpu = 0;  // --ranks-per-gpu; 0 = one rank per GPU
  int gpus = 0;           // -g/--ngpus: use the first `gpus` devices; 0 = as many as the ranks need
  bool gpu_buffers = false;  // mpi backend: collective buffers on the GPU (--gpu-buffers 1)
};

// Device of every rank: rank r runs on device r / ranks_per_gpu (consecutive ranks share a GPU).
// Throws std::invalid_argument, saying what to change, when there is no device, when more GPUs
// are needed than are visible (more ranks than GPUs without --ranks-per-gpu), when -g asks for
// more GPUs than are visible or fewer than the ranks need, or for non-positive numbers.
std::vector<int> assign_devices(const DeviceLayout& layout, int visible_devices);

}  // namespace ringlab
