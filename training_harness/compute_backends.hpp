// Choosing the compute backend of `ringlab train --compute cpu|gpu`: the CPU reference is always
// there; the GPU backend (gpu_compute.hpp) only in builds with CUDA, cuDNN and cuBLAS, and it
// needs a visible CUDA device.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "training_harness/compute.hpp"

namespace ringlab::training {

enum class ComputeKind { cpu, gpu };

// Throws std::invalid_argument naming the valid backends.
ComputeKind parse_compute(const std::string& text);
std::string_view name_of(ComputeKind kind);

// True when this build has the GPU backend.
bool gpu_compute_built();

// Throws std::invalid_argument when `kind` cannot run here: a build without the GPU backend
// ("--compute gpu needs a build with CUDA (RINGLAB_ENABLE_CUDA=ON)"), or no CUDA device.
void check_compute_available(ComputeKind kind);

// The backend for `rank`: the GPU backend on device local_rank % visible devices.
std::unique_ptr<Compute> make_compute(ComputeKind kind, int rank);

}  // namespace ringlab::training
