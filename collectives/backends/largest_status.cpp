#include "collectives/backends/largest_status.hpp"

#include <algorithm>
#include <exception>
#include <mutex>

#include "collectives/backends/rank_errors.hpp"
#include "collectives/fault_injection.hpp"

namespace ringlab {

int largest_status(const LaunchRequest& request, const RankStarter& start) {
  std::mutex status_mutex;
  int status = 0;
  RankErrors errors;
  try {
    start([&](Communicator& comm) {
      int rank_status = 0;
      try {
        inject_setup_fault(request.setup.fault, {FaultPoint::setup, FaultPoint::mpi_init}, comm.rank(),
                           "before the configuration agreement check", [&comm] { return comm.aborted(); });
        rank_status = request.body(comm);
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

}  // namespace ringlab
