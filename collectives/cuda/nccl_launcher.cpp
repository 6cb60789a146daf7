// The nccl backend's launcher: this process's rank of an MPI job (run_on_mpi_world), its
// collectives through NCCL on one GPU. Without CUDA, NCCL or MPI: how to get a build with it.
#include "collectives/launch_request.hpp"
#ifdef RINGLAB_HAVE_NCCL_BACKEND
#include <fmt/format.h>

#include <stdexcept>

#include "collectives/backends/mpi_launcher.hpp"
#include "collectives/cuda/device_memory.hpp"
#include "collectives/cuda/nccl_communicator.hpp"
#endif

namespace ringlab {

#ifdef RINGLAB_HAVE_NCCL_BACKEND
namespace {

int launch_nccl(const LaunchRequest& request) {
  return run_on_mpi_world(request, "--backend nccl", [&](MpiCommunicator& comm, bool) {
    if (request.layout.gpus > 1)
      throw std::invalid_argument(fmt::format("-g/--ngpus {}: the nccl backend drives one GPU per process; start one "
                                              "process per GPU (mpiexec -n <GPUs>)",
                                              request.layout.gpus));
    cuda::NcclCommunicator nccl(comm, cuda::local_rank_from_environment(comm.rank()), request.setup.timeout);
    return request.body(nccl);
  });
}

}  // namespace

const Launcher nccl_launcher{&launch_nccl, {}};
#else
const Launcher nccl_launcher{
    nullptr, "this ringlab was built without the nccl backend (it needs CUDA, NCCL and MPI: RINGLAB_ENABLE_CUDA=ON, "
             "RINGLAB_ENABLE_MPI=ON and NCCL found, see docs/cuda.md)"};
#endif

}  // namespace ringlab
