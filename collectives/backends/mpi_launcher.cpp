// The mpi backend's launcher: this process's rank of an MPI job, on host buffers, or on device
// buffers with --gpu-buffers 1 (CUDA-aware MPI or pinned staging), and run_on_mpi_world, which the
// nccl launcher shares. Without MPI: how to get a build with it. Also what the commands ask of
// MPI without starting it (prints_shared_errors, built_mpi_library_name).
#include "collectives/launch_request.hpp"
#ifdef RINGLAB_HAVE_MPI
#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "collectives/backends/mpi_communicator.hpp"
#include "collectives/backends/mpi_launcher.hpp"
#include "collectives/fault_injection.hpp"
#include "io/printable.hpp"
#ifdef RINGLAB_HAVE_CUDA
#include "collectives/cuda/device_memory.hpp"
#endif
#ifdef RINGLAB_HAVE_MPI_DEVICE
#include "collectives/cuda/mpi_device_communicator.hpp"
#endif
#endif

namespace ringlab {

#ifdef RINGLAB_HAVE_MPI
int run_on_mpi_world(const LaunchRequest& request, [[maybe_unused]] std::string_view gpu_need,
                     const std::function<int(MpiCommunicator&, bool cuda_aware)>& on_world) {
  const JobSetup& setup = request.setup;
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
  const bool cuda_aware = request.layout.gpu_buffers && cuda::mpi_is_cuda_aware();
  if (cuda_aware) mpi_setup.transport = MpiTransport::messages;
#else
  const bool cuda_aware = false;
  if (request.layout.gpu_buffers)
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

namespace {

int launch_mpi(const LaunchRequest& request) {
  const DeviceLayout& layout = request.layout;
  return run_on_mpi_world(request, layout.gpu_buffers ? "--gpu-buffers 1" : "",
                          [&](MpiCommunicator& comm, [[maybe_unused]] bool cuda_aware) {
#ifdef RINGLAB_HAVE_MPI_DEVICE
                            if (layout.gpu_buffers) {
                              cuda::MpiDeviceCommunicator device(comm, cuda::local_rank_from_environment(comm.rank()),
                                                                 cuda_aware);
                              return request.body(device);
                            }
#endif
                            return request.body(comm);
                          });
}

}  // namespace

const Launcher mpi_launcher{&launch_mpi, {}};

bool prints_shared_errors() { return launcher_rank() <= 0; }  // -1: no launcher started this process

std::string built_mpi_library_name() { return mpi_library_name(); }
#else
const Launcher mpi_launcher{nullptr,
                            "this ringlab was built without MPI (RINGLAB_ENABLE_MPI=OFF); use --backend threads"};

bool prints_shared_errors() { return true; }  // without MPI every process is a job of its own

std::string built_mpi_library_name() { return {}; }
#endif

}  // namespace ringlab
