// The backends whose ranks are the processes of an MPI job: mpi (on host buffers, or device
// buffers with --gpu-buffers 1) and nccl (NCCL on one GPU a process, MPI for its set-up). Both
// bring MPI up the same way: the set-up fault points, MPI_Init_thread and the world communicator
// under --timeout, and an error on any rank ends every rank with its message. Built with MPI only.
#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <string_view>

#include "collectives/backends/mpi_communicator.hpp"
#include "collectives/fault_injection.hpp"
#include "cli/launchers.hpp"
#include "io/printable.hpp"
#ifdef RINGLAB_HAVE_CUDA
#include "collectives/cuda/device_memory.hpp"
#endif
#ifdef RINGLAB_HAVE_NCCL_BACKEND
#include "collectives/cuda/nccl_communicator.hpp"
#endif
#ifdef RINGLAB_HAVE_MPI_DEVICE
#include "collectives/cuda/mpi_device_communicator.hpp"
#endif

namespace ringlab::cli {

namespace {

// Starts this process's rank of the MPI job and runs on_world(world communicator, whether CUDA-aware
// MPI carries device buffers). `gpu_need` names the option that needs a GPU in every process
// ("--backend nccl"), empty when none does.
int run_on_mpi_world(const DeviceLayout& layout, const JobSetup& setup, [[maybe_unused]] std::string_view gpu_need,
                     const std::function<int(MpiCommunicator&, bool cuda_aware)>& on_world) {
#ifdef RINGLAB_HAVE_CUDA
  // Every rank refuses on its own, before MPI starts, so none is killed before it says why.
  if (!gpu_need.empty() && cuda::visible_device_count() == 0)
    throw std::invalid_argument(fmt::format("no CUDA device is visible: {} needs one GPU per process", gpu_need));
#endif
  // No communicator in these two: a stalled rank ends when the job does (MPI_Abort, or the launcher).
  inject_setup_fault(setup.fault, {FaultPoint::mpi_init}, launcher_rank(), "before MPI_Init_thread", [] { return false; });
  MpiEnvironment environment(setup.timeout);
  MpiSetupOptions mpi_setup{MpiTransport::automatic, setup.timeout, [&setup](int rank) {
                              inject_setup_fault(setup.fault, {FaultPoint::setup}, rank,
                                                 "before the shared-memory bring-up", [] { return false; });
                            }};
#ifdef RINGLAB_HAVE_MPI_DEVICE
  // CUDA-aware MPI takes device pointers only over MPI messages (ringlab's shared memory copies with the CPU).
  const bool cuda_aware = layout.gpu_buffers && cuda::mpi_is_cuda_aware();
  if (cuda_aware) mpi_setup.transport = MpiTransport::messages;
#else
  const bool cuda_aware = false;
  if (layout.gpu_buffers)
    throw std::invalid_argument("this ringlab was built without CUDA; --gpu-buffers 1 needs RINGLAB_ENABLE_CUDA=ON");
#endif
  // A failure here (a set-up wait past --timeout, an injected fault) has no communicator to end
  // the job with: this rank says why and ends it itself, so no rank is left waiting.
  std::optional<MpiCommunicator> communicator;
  try {
    communicator.emplace(MPI_COMM_WORLD, mpi_setup);
  } catch (const std::exception& error) {
    int world_rank = -1;
    int world_size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size > 1) abort_mpi_job(world_rank, error.what());
    throw;
  }
  MpiCommunicator& comm = *communicator;
  try {
    if (setup.fault) check_fault_rank(*setup.fault, comm.size());
    return on_world(comm, cuda_aware);
  } catch (const std::exception& error) {
    if (comm.size() > 1) comm.abort(io::printable(error.what(), true));  // ends every rank with the message
    throw;
  }
}

// This process's rank of an MPI job; with --gpu-buffers 1 on device buffers.
int launch_mpi(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body) {
  return run_on_mpi_world(layout, setup, layout.gpu_buffers ? "--gpu-buffers 1" : "",
                          [&](MpiCommunicator& comm, [[maybe_unused]] bool cuda_aware) {
#ifdef RINGLAB_HAVE_MPI_DEVICE
                            if (layout.gpu_buffers) {
                              cuda::MpiDeviceCommunicator device(comm, cuda::local_rank_from_environment(comm.rank()),
                                                                 cuda_aware);
                              return body(device);
                            }
#endif
                            return body(comm);
                          });
}

#ifdef RINGLAB_HAVE_NCCL_BACKEND
// This process's rank of an MPI job, its collectives through NCCL on one GPU.
int launch_nccl(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body) {
  return run_on_mpi_world(layout, setup, "--backend nccl", [&](MpiCommunicator& comm, bool) {
    if (layout.gpus > 1)
      throw std::invalid_argument(fmt::format("-g/--ngpus {}: the nccl backend drives one GPU per process; start one "
                                              "process per GPU (mpiexec -n <GPUs>)",
                                              layout.gpus));
    cuda::NcclCommunicator nccl(comm, cuda::local_rank_from_environment(comm.rank()), setup.timeout);
    return body(nccl);
  });
}
#endif

}  // namespace

const Launcher mpi_launcher{&launch_mpi, {}};
#ifdef RINGLAB_HAVE_NCCL_BACKEND
const Launcher nccl_launcher{&launch_nccl, {}};
#endif

}  // namespace ringlab::cli
