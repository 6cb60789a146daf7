// The waits of the mpi backend's set-up (duplicating the communicator, the shared-memory
// bring-up) under the job's --timeout: each nonblocking collective is polled against its own
// deadline, `timeout` after it starts, and the ranks sleep between polls so that, while one rank
// is missing, the waiting ones leave the (often oversubscribed) cores alone. Set-up is never timed.
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>
#include <string_view>

#include "collectives/communicator.hpp"

namespace ringlab {

struct MpiSetupWaits {
  int rank = 0;
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};

  // Completes `request`, just started by the nonblocking call `function` that returned `code`.
  // Throws CommunicationError when the call or MPI_Test fails, and TimeoutError (timed_out(what))
  // when it is not complete `timeout` after this call.
  void complete(int code, MPI_Request& request, std::string_view function, std::string_view what) const;

  // "mpi backend: rank R: set-up timed out: WHAT [set-up, after --timeout T s]"
  std::string timed_out(std::string_view what) const;
};

// MPI's text for an error code (MPI_Error_string), or "MPI error code N" where it has none.
std::string mpi_error_string(int code);

}  // namespace ringlab
