// Runs a per-rank body on the chosen backend: MPI processes (under mpiexec) or threads.
#pragma once

#include <functional>
#include <string>

#include "communicator.hpp"

namespace ringlab::cli {

// "auto" picks mpi when the process was started by an MPI launcher, else threads.
std::string resolve_backend(const std::string& backend);

// Number of ranks the job will have on the resolved backend (threads: `thread_ranks`; mpi: the
// launcher's size, or 1 when unknown). Known before any communicator exists.
int expected_ranks(const std::string& backend, int thread_ranks);

// Runs body(comm) on every rank and returns the largest exit status. An exception on any rank
// ends the whole job with its message (MPI_Abort on mpi; the threads world is aborted).
int run_ranks(const std::string& backend, int thread_ranks, const std::function<int(Communicator&)>& body);

// The MPI library's version line, when built with MPI.
std::string mpi_library_name();

}  // namespace ringlab::cli
