// The MPI test binary's shared communicator (created in mpi_test_main.cpp after MPI_Init).
#pragma once

#include "collectives/backends/mpi_communicator.hpp"

namespace ringlab::testing {
MpiCommunicator& world_communicator();
}  // namespace ringlab::testing
