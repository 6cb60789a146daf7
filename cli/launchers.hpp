// How each backend starts its ranks (one function a backend), for cli/launch.cpp's launcher table.
// Every function runs `body` on the ranks this process holds and returns the largest exit status.
#pragma once

#include <functional>

#include "collectives/backends/device_assignment.hpp"
#include "collectives/communicator.hpp"
#include "cli/launch.hpp"

namespace ringlab::cli {

using RankBody = std::function<int(Communicator&)>;
using LaunchRanks = int (*)(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body);

// Ranks as threads of this process (launch_threads.cpp): each rank passes the set-up fault point,
// then runs body; the rank that fails prints its error and stops the others (RankErrors).
int launch_threads(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body);
#ifdef RINGLAB_HAVE_CUDA
// The cuda-peer threads, each on its GPU (assign_devices before any rank starts).
int launch_cuda_peer(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body);
#endif
#ifdef RINGLAB_HAVE_MPI
// This process's rank of an MPI job (launch_mpi.cpp); with --gpu-buffers 1 on device buffers.
int launch_mpi(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body);
#endif
#ifdef RINGLAB_HAVE_NCCL_BACKEND
// This process's rank of an MPI job, its collectives through NCCL on one GPU.
int launch_nccl(const DeviceLayout& layout, const JobSetup& setup, const RankBody& body);
#endif

}  // namespace ringlab::cli
