// How each backend starts its ranks: one launcher a line of collectives/backends.def, named
// <id>_launcher after the line's id, which cli/launch.cpp's launcher table finds by that line.
// A launch function runs `body` on the ranks this process holds and returns the largest exit status.
#pragma once

#include <functional>
#include <string_view>

#include "collectives/backends/device_assignment.hpp"
#include "collectives/communicator.hpp"
#include "cli/launch.hpp"

namespace ringlab::cli {

using RankBody = std::function<int(Communicator&)>;
using LaunchRanks = int (*)(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body);

// A backend's launcher in this build: its launch function, or, where this build lacks the backend,
// none and how to get a build with it.
struct Launcher {
  LaunchRanks launch = nullptr;
  std::string_view missing;
};

// Declared for every line; defined with its launch function (threads and cuda-peer in
// launch_threads.cpp, mpi and nccl in launch_mpi.cpp), or, in a build without the backend, in
// launch.cpp with the words that say how to get one.
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
#define RINGLAB_BACKEND_LAUNCHER(id, name, ...) ::ringlab::cli::BackendLauncher{name, &::ringlab::cli::id##_launcher},

}  // namespace ringlab::cli
