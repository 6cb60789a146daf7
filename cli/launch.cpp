#include "launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "backends/threads_communicator.hpp"
#include "machine_info.hpp"
#include "fault_injection.hpp"
#include "job_options.hpp"
#include "printable.hpp"
#include "rank_errors.hpp"
#ifdef RINGLAB_HAVE_MPI
#include "backends/mpi_communicator.hpp"
#endif
#ifdef RINGLAB_HAVE_CUDA
#include "cuda_peer_communicator.hpp"
#include "device_memory.hpp"
#endif
#ifdef RINGLAB_HAVE_NCCL_BACKEND
#include "nccl_communicator.hpp"
#endif
#ifdef RINGLAB_HAVE_MPI_DEVICE
#include "mpi_device_communicator.hpp"
#endif

namespace ringlab::cli {

namespace {

const char* launcher_size() {
  for (const char* variable : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "PMIX_SIZE"})
    if (const char* value = std::getenv(variable)) return value;
  return nullptr;
}

}  // namespace

std::string resolve_backend(const std::string& backend) {
  if (backend == "auto") return launcher_size() != nullptr || std::getenv("PMI_RANK") ? "mpi" : "threads";
  if (backend == "mpi" || backend == "threads") return backend;
  if (backend == "cuda-peer") {
#ifdef RINGLAB_HAVE_CUDA
    return backend;
#else
    throw std::invalid_argument("this ringlab was built without CUDA (RINGLAB_ENABLE_CUDA=OFF, or no nvcc was found); "
                                "configure with -DRINGLAB_ENABLE_CUDA=ON for --backend cuda-peer");
#endif
  }
  if (backend == "nccl") {
#ifdef RINGLAB_HAVE_NCCL_BACKEND
    return backend;
#else
    throw std::invalid_argument("this ringlab was built without the nccl backend (it needs CUDA, NCCL and MPI: "
                                "RINGLAB_ENABLE_CUDA=ON, RINGLAB_ENABLE_MPI=ON and NCCL found, see docs/cuda.md)");
#endif
  }
  throw std::invalid_argument(
      fmt::format("unknown backend '{}'; valid backends: auto, mpi, threads, cuda-peer, nccl", backend));
}

bool is_device_backend(const std::string& backend) { return backend == "cuda-peer" || backend == "nccl"; }

int expected_ranks(const std::string& backend, int thread_ranks) {
  if (backend == "threads" || backend == "cuda-peer") return thread_ranks;
  const char* size = launcher_size();
  return size ? std::max(1, std::atoi(size)) : 1;
}

int run_ranks(const std::string& backend, int thread_ranks, const JobSetup& setup,
              const std::function<int(Communicator&)>& body) {
  return run_ranks(backend, DeviceLayout{thread_ranks, 0, 0}, setup, body);
}

int run_ranks(const std::string& backend, const DeviceLayout& layout, const JobSetup& setup,
              const std::function<int(Communicator&)>& body) {
  // RINGLAB_FAULT's rank must be one of the job's: checked before any thread rank starts, and on
  // every MPI rank once the world's size is known (below).
  if (setup.fault && backend != "mpi" && backend != "nccl") check_fault_rank(*setup.fault, layout.ranks);
  // Runs body on every rank through `start` (one thread per rank) and returns the largest status.
  // The rank that failed prints its error, the ranks its failure stopped are summed up in one line
  // (RankErrors), and main does not repeat what a rank printed (ReportedError).
  auto largest_status = [&](const auto& start) {
    std::mutex status_mutex;
    int status = 0;
    RankErrors errors;
    try {
      start([&](Communicator& comm) {
        int rank_status = 0;
        try {
          inject_setup_fault(setup.fault, {FaultPoint::setup, FaultPoint::mpi_init}, comm.rank(),
                             "before the configuration agreement check", [&comm] { return comm.aborted(); });
          rank_status = body(comm);
        } catch (const std::exception& error) {
          errors.rank_failed(comm, error);
          throw;
        }
        const std::lock_guard lock(status_mutex);
        status = std::max(status, rank_status);
      });
    } catch (const std::exception& error) {
      errors.print_stopped();
      if (errors.printed(error.what())) throw ReportedError(error.what());
      throw;
    }
    return status;
  };
  if (backend == "threads" || backend == "cuda-peer") check_threads_job(layout.ranks, 0, report::available_memory_bytes());
  if (backend == "cuda-peer") {
#ifdef RINGLAB_HAVE_CUDA
    const std::vector<int> devices = assign_devices(layout, cuda::visible_device_count());
    return largest_status([&](const std::function<void(Communicator&)>& rank_body) { cuda::run_cuda_peer(devices, rank_body); });
#else
    throw std::invalid_argument("this ringlab was built without CUDA; use --backend threads or mpi");
#endif
  }
  if (backend == "threads") {
    return largest_status([&](const std::function<void(Communicator&)>& rank_body) { run_threads(layout.ranks, rank_body); });
  }
#ifdef RINGLAB_HAVE_MPI
#ifdef RINGLAB_HAVE_CUDA
  // Every rank refuses on its own, before MPI starts, so none is killed before it says why.
  if ((backend == "nccl" || layout.gpu_buffers) && cuda::visible_device_count() == 0)
    throw std::invalid_argument(fmt::format("no CUDA device is visible: {} needs one GPU per process",
                                            backend == "nccl" ? "--backend nccl" : "--gpu-buffers 1"));
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
#ifdef RINGLAB_HAVE_MPI_DEVICE
    if (backend == "mpi" && layout.gpu_buffers) {
      cuda::MpiDeviceCommunicator device(comm, cuda::local_rank_from_environment(comm.rank()), cuda_aware);
      return body(device);
    }
#endif
#ifdef RINGLAB_HAVE_NCCL_BACKEND
    if (backend == "nccl") {
      if (layout.gpus > 1)
        throw std::invalid_argument(fmt::format("-g/--ngpus {}: the nccl backend drives one GPU per process; start one "
                                                "process per GPU (mpiexec -n <GPUs>)",
                                                layout.gpus));
      cuda::NcclCommunicator nccl(comm, cuda::local_rank_from_environment(comm.rank()), setup.timeout);
      return body(nccl);
    }
#endif
    return body(comm);
  } catch (const std::exception& error) {
    if (comm.size() > 1) comm.abort(io::printable(error.what(), true));  // ends every rank with the message
    throw;
  }
#else
  throw std::invalid_argument("this ringlab was built without MPI (RINGLAB_ENABLE_MPI=OFF); use --backend threads");
#endif
}

bool prints_shared_errors() {
#ifdef RINGLAB_HAVE_MPI
  return launcher_rank() <= 0;  // -1: no launcher started this process
#else
  return true;  // without MPI every process is a job of its own
#endif
}

std::string mpi_library_name() {
#ifdef RINGLAB_HAVE_MPI
  return ringlab::mpi_library_name();
#else
  return {};
#endif
}

}  // namespace ringlab::cli
