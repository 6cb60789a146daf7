#include "collectives/backends/device_assignment.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace ringlab {

std::vector<int> assign_devices(const DeviceLayout& layout, int visible_devices) {
  if (layout.ranks < 1) throw std::invalid_argument(fmt::format("--ranks must be at least 1 (got {})", layout.ranks));
  if (layout.ranks_per_gpu < 0)
    throw std::invalid_argument(
        fmt::format("--ranks-per-gpu must be at least 1, or 0 for one rank per GPU (got {})", layout.ranks_per_gpu));
  if (layout.gpus < 0)
    throw std::invalid_argument(fmt::format("-g/--ngpus must be at least 1, or 0 for as many as needed (got {})", layout.gpus));
  if (layout.gpus > visible_devices)
    throw std::invalid_argument(fmt::format("-g/--ngpus {} asks for more GPUs than the {} visible", layout.gpus,
                                            visible_devices));
  if (visible_devices < 1)
    throw std::invalid_argument("no CUDA device is visible (cudaGetDeviceCount found none): the cuda-peer backend "
                                "needs a GPU; use --backend threads or mpi on this machine");
  const int per_gpu = layout.ranks_per_gpu == 0 ? 1 : layout.ranks_per_gpu;
  const int needed = (layout.ranks + per_gpu - 1) / per_gpu;
  const int usable = layout.gpus == 0 ? visible_devices : layout.gpus;
  if (needed > usable) {
    if (layout.ranks_per_gpu == 0)
      throw std::invalid_argument(fmt::format(
          "--ranks {} needs {} GPUs at one rank per GPU, but {} {} usable; pass --ranks-per-gpu {} to run several "
          "virtual ranks on each GPU",
          layout.ranks, needed, usable, usable == 1 ? "is" : "are", (layout.ranks + usable - 1) / usable));
    throw std::invalid_argument(fmt::format("--ranks {} at --ranks-per-gpu {} needs {} GPUs, but {} {} usable; raise "
                                            "--ranks-per-gpu to {}",
                                            layout.ranks, per_gpu, needed, usable, usable == 1 ? "is" : "are",
                                            (layout.ranks + usable - 1) / usable));
  }
  std::vector<int> devices(static_cast<std::size_t>(layout.ranks));
  for (int rank = 0; rank < layout.ranks; ++rank) devices[static_cast<std::size_t>(rank)] = rank / per_gpu;
  return devices;
}

}  // namespace ringlab
