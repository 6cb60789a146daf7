// Registered buffers for the mpi backend: collective buffers in POSIX shared memory that every
// other rank of the host maps, registered with the shared-memory transport so that sends out of
// them move with one copy (the receiver reads the sender's memory; ShmTransport::add_region).
//
// Set-up, collective over the communicator: each rank creates and maps its own segment, the names
// and sizes are exchanged with MPI_Iallgather, each rank maps the segments of its peers on the
// host, the ranks agree with MPI_Iallreduce that all of it worked, and the names are unlinked
// (nothing is left in /dev/shm if the job dies later). When anything failed on any rank every
// rank gets plain heap memory instead, with the reason. Tear-down is local (munmap).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "collectives/communicator.hpp"
#include "collectives/backends/shm_transport.hpp"

namespace ringlab {

// Waits for a nonblocking MPI collective (with a deadline); throws on failure or time-out.
using MpiCollectiveWait = std::function<void(MPI_Request&, std::string_view what)>;

// Collective over every rank of `comm`, also those without shared memory (`transport` nullptr:
// they take part and get heap memory). `region_id` must be the same on every rank for the same
// call (a per-communicator counter).
std::unique_ptr<CommBuffer> allocate_registered_buffer(MPI_Comm comm, ShmTransport* transport, std::int64_t region_id,
                                                       std::size_t bytes, const MpiCollectiveWait& wait);

}  // namespace ringlab
