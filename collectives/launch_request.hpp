// How a backend starts its ranks: a launch request (the device layout, the job's set-up, the rank
// body) handed to the backend's launcher, one launcher a line of collectives/backends.def, named
// <id>_launcher after the line's id and defined in the backend's own *_launcher.cpp (built into
// ringlab_launchers, which links every backend library the build has). cli/launch.cpp finds each
// through the same line (RINGLAB_BACKEND_LAUNCHER) and never names a backend.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "collectives/backends/device_assignment.hpp"
#include "collectives/communicator.hpp"
#include "collectives/fault_injection.hpp"

namespace ringlab {

// What the ranks' set-up obeys, from process start to the body: the job's --timeout bounds each
// set-up wait (mpi: MPI_Init_thread, duplicating the communicator, the shared-memory bring-up;
// nccl: the bootstrap), and the fault hook's step=setup acts there (mpi: before the shared-memory
// bring-up; threads and cuda-peer: before the body, so before its agreement check).
struct JobSetup {
  std::chrono::milliseconds timeout;
  std::optional<FaultSpec> fault;
};

// A rank's work on its communicator; returns the rank's exit status.
using RankBody = std::function<int(Communicator&)>;

// One job for a launcher: where its ranks run (--ranks, --ranks-per-gpu, -g, --gpu-buffers), what
// their set-up obeys, and what each rank runs.
struct LaunchRequest {
  DeviceLayout layout;
  JobSetup setup;
  RankBody body;
};

// Runs request.body on the ranks this process holds and returns the largest exit status. An
// exception on any rank, in set-up or in the body, ends the whole job with its message.
using LaunchRanks = int (*)(const LaunchRequest& request);

// A backend's launcher in this build: its launch function, or, where this build lacks the backend,
// none and how to get a build with it.
struct Launcher {
  LaunchRanks launch = nullptr;
  std::string_view missing;
};

// Declared for every line; each backend's *_launcher.cpp defines its own, with the launch function
// where this build has the backend and with the words that say how to get one where it does not.
#define RINGLAB_BACKEND(id, ...) extern const Launcher id##_launcher;
#include "collectives/backends.def"
#undef RINGLAB_BACKEND

// A line of the launcher table: a backend's name and its launcher.
struct BackendLauncher {
  std::string_view backend;
  const Launcher* launcher = nullptr;
};

// A line of collectives/backends.def as a BackendLauncher, for a table's initializer (as
// RINGLAB_BACKEND_INFO makes the registry's BackendInfo of it).
#define RINGLAB_BACKEND_LAUNCHER(id, name, ...) ::ringlab::BackendLauncher{name, &::ringlab::id##_launcher},

// Whether this process prints an error that every rank of its job meets alike (a bad option, an
// input every rank reads), so that a job prints it once: rank 0 of a job an MPI launcher started,
// or a process no launcher started (every process, in a build without MPI). Errors one rank meets
// while the job runs are printed by that rank (the launchers). Defined with the mpi launcher.
bool prints_shared_errors();

// The MPI library's version line in a build with MPI, else empty (a report's machine description).
std::string built_mpi_library_name();

}  // namespace ringlab
