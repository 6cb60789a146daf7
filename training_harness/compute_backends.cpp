#include "training_harness/compute_backends.hpp"

#include <fmt/format.h>

#include <stdexcept>

#if RINGLAB_HAVE_GPU_COMPUTE
#include "collectives/cuda/device_memory.hpp"
#include "training_harness/gpu_compute.hpp"
#endif

namespace ringlab::training {

ComputeKind parse_compute(const std::string& text) {
  if (text == "cpu") return ComputeKind::cpu;
  if (text == "gpu") return ComputeKind::gpu;
  throw std::invalid_argument(fmt::format("unknown compute backend '{}'; valid: cpu, gpu", text));
}

std::string_view name_of(ComputeKind kind) { return kind == ComputeKind::gpu ? "gpu" : "cpu"; }

bool gpu_compute_built() { return RINGLAB_HAVE_GPU_COMPUTE != 0; }

void check_compute_available(ComputeKind kind) {
  if (kind == ComputeKind::cpu) return;
#if RINGLAB_HAVE_GPU_COMPUTE
  if (cuda::visible_device_count() == 0)
    throw std::invalid_argument(
        "--compute gpu: no CUDA device is visible (cudaGetDeviceCount finds none; check the driver and "
        "CUDA_VISIBLE_DEVICES); run on a machine with a GPU or use --compute cpu");
#else
  throw std::invalid_argument("--compute gpu needs a build with CUDA (RINGLAB_ENABLE_CUDA=ON)" RINGLAB_GPU_COMPUTE_MISSING
                              "; this build has only --compute cpu");
#endif
}

std::unique_ptr<Compute> make_compute(ComputeKind kind, int rank) {
  check_compute_available(kind);
  if (kind == ComputeKind::cpu) return make_cpu_compute();
#if RINGLAB_HAVE_GPU_COMPUTE
  const int local_rank = cuda::local_rank_from_environment(rank);
  return make_gpu_compute(local_rank % cuda::visible_device_count());
#else
  (void)rank;
  return nullptr;  // not reached: check_compute_available threw
#endif
}

}  // namespace ringlab::training
