#include "launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "backends/threads_communicator.hpp"
#ifdef RINGLAB_HAVE_MPI
#include "backends/mpi_communicator.hpp"
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
  throw std::invalid_argument(fmt::format("unknown backend '{}'; valid backends: auto, mpi, threads", backend));
}

int expected_ranks(const std::string& backend, int thread_ranks) {
  if (backend == "threads") return thread_ranks;
  const char* size = launcher_size();
  return size ? std::max(1, std::atoi(size)) : 1;
}

int run_ranks(const std::string& backend, int thread_ranks, const std::function<int(Communicator&)>& body) {
  if (backend == "threads") {
    if (thread_ranks < 1) throw std::invalid_argument(fmt::format("--ranks must be at least 1 (got {})", thread_ranks));
    std::mutex status_mutex;
    int status = 0;
    run_threads(thread_ranks, [&](Communicator& comm) {
      const int rank_status = body(comm);
      const std::lock_guard lock(status_mutex);
      status = std::max(status, rank_status);
    });
    return status;
  }
#ifdef RINGLAB_HAVE_MPI
  MpiEnvironment environment;
  MpiCommunicator comm;
  try {
    return body(comm);
  } catch (const std::exception& error) {
    if (comm.size() > 1) comm.abort(error.what());  // ends every rank with the message
    throw;
  }
#else
  throw std::invalid_argument("this ringlab was built without MPI (RINGLAB_ENABLE_MPI=OFF); use --backend threads");
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
