// Resolves --backend through the backend registry (collectives/backend_registry.hpp) and starts a
// job's ranks through the launcher table, made from the same lines (collectives/backends.def): a
// backend's launcher (collectives/launch_request.hpp), or, where this build lacks the backend,
// how to get one that has it.
#include "cli/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <string_view>

#include "collectives/backend_registry.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/launch_request.hpp"
#include "report/machine_info.hpp"

namespace ringlab::cli {

namespace {

std::span<const BackendLauncher> launchers() {
  static const BackendLauncher table[] = {
#define RINGLAB_BACKEND RINGLAB_BACKEND_LAUNCHER
#include "collectives/backends.def"
#undef RINGLAB_BACKEND
  };
  return table;
}

// The launcher of a registered backend; every line of the registry has one.
const Launcher& launcher_of(const BackendInfo& backend) {
  const auto table = launchers();
  const auto line = std::find_if(table.begin(), table.end(),
                                 [&](const BackendLauncher& launcher) { return launcher.backend == backend.name; });
  if (line == table.end()) throw std::logic_error(fmt::format("backend '{}' has no launcher", backend.name));
  return *line->launcher;
}

const char* launcher_size() {
  for (const char* variable : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "PMIX_SIZE"})
    if (const char* value = std::getenv(variable)) return value;
  return nullptr;
}

}  // namespace

std::string resolve_backend(const std::string& backend) {
  if (backend == "auto") return launcher_size() != nullptr || std::getenv("PMI_RANK") ? "mpi" : "threads";
  const Launcher& launcher = launcher_of(find_backend(backend));
  if (launcher.launch == nullptr) throw std::invalid_argument(std::string(launcher.missing));
  return backend;
}

int expected_ranks(const std::string& backend, int thread_ranks) {
  if (find_backend(backend).ranks_are_threads()) return thread_ranks;
  const char* size = launcher_size();
  return size ? std::max(1, std::atoi(size)) : 1;
}

int run_ranks(const std::string& backend, int thread_ranks, const JobSetup& setup,
              const std::function<int(Communicator&)>& body) {
  return run_ranks(backend, DeviceLayout{thread_ranks, 0, 0}, setup, body);
}

int run_ranks(const std::string& backend, const DeviceLayout& layout, const JobSetup& setup,
              const std::function<int(Communicator&)>& body) {
  const BackendInfo& info = find_backend(backend);
  const Launcher& launcher = launcher_of(info);
  if (launcher.launch == nullptr) throw std::invalid_argument(std::string(launcher.missing));
  // RINGLAB_FAULT's rank must be one of the job's: checked before any thread rank starts, and on
  // every MPI rank once the world's size is known (run_on_mpi_world).
  if (info.ranks_are_threads()) {
    if (setup.fault) check_fault_rank(*setup.fault, layout.ranks);
    check_threads_job(layout.ranks, 0, report::available_memory_bytes());
  }
  return launcher.launch(LaunchRequest{layout, setup, body});
}

}  // namespace ringlab::cli
