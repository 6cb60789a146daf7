// Runs a per-rank body on the chosen backend: MPI processes (under mpiexec) or threads.
#pragma once

#include <functional>
#include <string>

#include "collectives/backends/device_assignment.hpp"
#include "collectives/communicator.hpp"
#include "collectives/launch_request.hpp"

namespace ringlab::cli {

// "auto" picks mpi when the process was started by an MPI launcher, else threads; any other name
// must be a registered backend (collectives/backend_registry.hpp; the message lists them) that
// this build has (else the message says how to get a build with it).
std::string resolve_backend(const std::string& backend);

// Number of ranks the job will have on the resolved backend (ranks as threads: `thread_ranks`;
// ranks under an MPI launcher: the launcher's size, or 1 when unknown). Known before any communicator exists.
int expected_ranks(const std::string& backend, int thread_ranks);

// Runs body(comm) on every rank through the backend's launcher (collectives/launch_request.hpp)
// and returns the largest exit status. Jobs whose ranks are threads pass check_threads_job (ranks,
// mailboxes against the available memory) first. An exception on any rank, in set-up or in the
// body, ends the whole job with its message (MPI_Abort on mpi; the threads world is aborted); a
// message a rank already printed comes as ReportedError (collectives/backends/rank_errors.hpp).
int run_ranks(const std::string& backend, int thread_ranks, const JobSetup& setup,
              const std::function<int(Communicator&)>& body);
// The same with the device layout of the cuda-peer backend (--ranks, --ranks-per-gpu, -g); the
// GPUs are assigned (assign_devices) before any rank starts, so a bad layout starts nothing.
int run_ranks(const std::string& backend, const DeviceLayout& layout, const JobSetup& setup,
              const std::function<int(Communicator&)>& body);

}  // namespace ringlab::cli
