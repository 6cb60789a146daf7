#include "collectives/backends/mpi_setup_wait.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <thread>

namespace ringlab {

namespace {

// Polls this often without sleeping (a set-up collective of ranks that are all present takes a
// few of MPICH's progress calls), then sleeps between polls.
constexpr int eager_polls = 100;
constexpr auto poll_sleep = std::chrono::milliseconds(1);

}  // namespace

std::string MpiSetupWaits::timed_out(std::string_view what) const {
  return fmt::format("mpi backend: rank {}: set-up timed out: {} [set-up, after --timeout {} s]", rank, what,
                     static_cast<double>(timeout.count()) / 1000.0);
}

void MpiSetupWaits::complete(int code, MPI_Request& request, std::string_view function, std::string_view what) const {
  if (code != MPI_SUCCESS)
    throw CommunicationError(fmt::format("mpi backend: rank {}: {} failed ({}): {}", rank, function, what, mpi_error_string(code)));
  const auto deadline = Clock::now() + timeout;
  for (int polls = 0;; ++polls) {
    int done = 0;
    code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS)
      throw CommunicationError(
          fmt::format("mpi backend: rank {}: MPI_Test of {} failed ({}): {}", rank, function, what, mpi_error_string(code)));
    if (done != 0) return;
    // A nonblocking collective cannot be cancelled or freed: the process ends soon after this.
    if (Clock::now() >= deadline) throw TimeoutError(timed_out(what));
    if (polls < eager_polls) sched_yield();
    else std::this_thread::sleep_for(poll_sleep);
  }
}

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return fmt::format("MPI error code {}", code);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace ringlab
