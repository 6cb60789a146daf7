// How the backends whose ranks are the processes of an MPI job (mpi, nccl) bring MPI up: the
// set-up fault points, MPI_Init_thread and the world communicator under --timeout, and an error on
// any rank ends every rank with its message. Built with MPI only (ringlab_launchers).
#pragma once

#include <functional>
#include <string_view>

#include "collectives/backends/mpi_communicator.hpp"
#include "collectives/launch_request.hpp"

namespace ringlab {

// Starts this process's rank of the MPI job and runs on_world(world communicator, whether CUDA-aware
// MPI carries device buffers). `gpu_need` names the option that needs a GPU in every process
// ("--backend nccl"), empty when none does.
int run_on_mpi_world(const LaunchRequest& request, std::string_view gpu_need,
                     const std::function<int(MpiCommunicator&, bool cuda_aware)>& on_world);

}  // namespace ringlab
