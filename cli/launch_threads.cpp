// The backends whose ranks are threads of this process: threads and cuda-peer. Both run every
// rank through one wrapper that keeps the largest exit status and turns one rank's failure into
// the end of the job (the failing rank prints its error; the ranks it stopped are summed up).
#include <algorithm>
#include <mutex>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/fault_injection.hpp"
#include "cli/launchers.hpp"
#include "report/machine_info.hpp"
#include "cli/rank_errors.hpp"
#ifdef RINGLAB_HAVE_CUDA
#include "collectives/cuda/cuda_peer_communicator.hpp"
#include "collectives/cuda/device_memory.hpp"
#endif

namespace ringlab::cli {

namespace {

using RankStarter = std::function<void(const std::function<void(Communicator&)>& rank_body)>;

// Runs body on every rank through `start` (one thread per rank) and returns the largest status.
// The rank that failed prints its error, the ranks its failure stopped are summed up in one line
// (RankErrors), and main does not repeat what a rank printed (ReportedError).
int largest_status(const JobSetup& setup, const RankBody& body, const RankStarter& start) {
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
}

// Ranks as threads of this process: each passes the set-up fault point, then runs body.
int launch_threads(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body) {
  check_threads_job(layout.ranks, 0, report::available_memory_bytes());
  return largest_status(setup, body, [&](const std::function<void(Communicator&)>& rank_body) {
    run_threads(layout.ranks, rank_body);
  });
}

#ifdef RINGLAB_HAVE_CUDA
// The cuda-peer threads, each on its GPU (assign_devices before any rank starts).
int launch_cuda_peer(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body) {
  check_threads_job(layout.ranks, 0, report::available_memory_bytes());
  const std::vector<int> devices = assign_devices(layout, cuda::visible_device_count());
  return largest_status(setup, body, [&](const std::function<void(Communicator&)>& rank_body) {
    cuda::run_cuda_peer(devices, rank_body);
  });
}
#endif

}  // namespace

const Launcher threads_launcher{&launch_threads, {}};
#ifdef RINGLAB_HAVE_CUDA
const Launcher cuda_peer_launcher{&launch_cuda_peer, {}};
#endif

}  // namespace ringlab::cli
