// How the nccl backend's ranks learn NCCL's unique id, as nccl-tests does it (rank 0 calls
// ncclGetUniqueId and broadcasts it), over the host Communicator that controls the job (MPI).
// The message carries a magic word and the world size besides the id's 128 bytes, so a rank of
// another job or a launch with mismatched sizes fails with a message instead of a hung
// ncclCommInitRank. Pure (no NCCL): tested on the threads backend without a GPU.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "collectives/communicator.hpp"

namespace ringlab::cuda {

inline constexpr std::size_t nccl_unique_id_bytes = 128;  // sizeof(ncclUniqueId)
using UniqueIdBytes = std::array<std::byte, nccl_unique_id_bytes>;

struct BootstrapMessage {
  std::uint64_t magic = 0;
  std::int32_t nranks = 0;
  std::int32_t root = 0;
  UniqueIdBytes id{};
};

inline constexpr std::uint64_t bootstrap_magic = 0x72696e676c61626eULL;  // "ringlabn"
inline constexpr int bootstrap_tag = 31500;  // above every step tag, below the executor's agreement tags

BootstrapMessage make_bootstrap_message(const UniqueIdBytes& id, int nranks);

// Throws CommunicationError naming `rank`, what was expected and what arrived.
void check_bootstrap_message(const BootstrapMessage& message, int rank, int nranks);

// Rank 0 sends `id` (only its value counts) to every other rank; every rank returns rank 0's id.
// Collective over `control`; gives up after `timeout`.
UniqueIdBytes exchange_unique_id(Communicator& control, const UniqueIdBytes& id, std::chrono::milliseconds timeout);

}  // namespace ringlab::cuda
