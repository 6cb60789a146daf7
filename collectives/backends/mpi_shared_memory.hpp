// MpiNodeSharedMemory: the shared-memory channels between the ranks of one host, set up over
// MPI. Each rank creates one POSIX shared-memory segment holding a channel from every other rank
// of its host (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) finds them), the segment names are
// exchanged with MPI_Allgather, every rank maps its peers' segments, and the names are unlinked
// once all are mapped, so nothing is left in /dev/shm even if the job dies later. Tear-down is
// local (munmap), never collective, so a failing rank cannot hang the others in a destructor.
//
// POSIX segments rather than MPI_Win_allocate_shared for exactly that reason: MPI_Win_free is
// collective. Space is reserved with posix_fallocate, so a full /dev/shm is an error at set-up
// (and the mpi backend falls back to MPI messages), never a SIGBUS later.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collectives/backends/shm_channel.hpp"

namespace ringlab {

// A fresh POSIX shared-memory name for this process ("/ringlab-PID-LOCALRANK-NONCE").
std::string new_segment_name(int local_rank);
// Maps `bytes` of the named segment, creating it (O_EXCL, space reserved with posix_fallocate)
// when `create`; on failure returns nullptr and sets `error`. The caller unlinks the name.
void* map_shared_segment(const std::string& name, std::size_t bytes, bool create, std::string& error);

class MpiNodeSharedMemory {
 public:
  // Collective over `comm`. Returns nullptr, with the reason in `why_not`, when fewer than two
  // ranks share a host, when any rank of the host did not ask for it (`wanted` false), or when a
  // segment cannot be created or mapped on any rank of the host (all ranks of a host agree).
  // Each of its collectives gives up `timeout` after it starts (TimeoutError naming the wait);
  // then nothing is left in /dev/shm.
  static std::unique_ptr<MpiNodeSharedMemory> create(MPI_Comm comm, bool wanted, std::string& why_not,
                                                     std::chrono::milliseconds timeout = std::chrono::seconds(300));
  ~MpiNodeSharedMemory();
  MpiNodeSharedMemory(const MpiNodeSharedMemory&) = delete;
  MpiNodeSharedMemory& operator=(const MpiNodeSharedMemory&) = delete;

  // Indexed by rank in `comm`; nullptr for ranks on other hosts and for this rank.
  std::vector<ShmChannel*> inbound() const;
  std::vector<ShmChannel*> outbound() const;

  int ranks_on_host() const { return ranks_on_host_; }
  std::size_t slots() const { return slots_; }
  std::size_t slot_bytes() const { return slot_bytes_; }

 private:
  struct Mapping {
    void* address = nullptr;
    std::size_t bytes = 0;
  };
  MpiNodeSharedMemory() = default;

  int ranks_on_host_ = 0;
  std::size_t slots_ = 0;
  std::size_t slot_bytes_ = 0;
  std::vector<Mapping> mappings_;
  std::vector<std::unique_ptr<ShmChannel>> inbound_;  // by rank in comm
  std::vector<std::unique_ptr<ShmChannel>> outbound_;
};

}  // namespace ringlab
