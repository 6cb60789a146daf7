#include "collectives/backends/mpi_shared_memory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "collectives/backends/blocking_call_watchdog.hpp"
#include "collectives/backends/mpi_setup_wait.hpp"

namespace ringlab {

namespace {

// Per-rank budget for the channels into it: a few slots per peer are enough to keep a copy and
// the matching read overlapped; slots small enough to stay in cache between the two.
constexpr std::size_t inbound_budget_bytes = std::size_t{8} << 20;
constexpr std::size_t max_slots = 8;
constexpr std::size_t min_slots = 2;
constexpr std::size_t host_name_bytes = 64;

std::size_t slot_bytes_for(int ranks_on_host) { return ranks_on_host <= 16 ? std::size_t{128} << 10 : std::size_t{32} << 10; }

std::size_t slots_for(int ranks_on_host, std::size_t slot_bytes) {
  const std::size_t per_peer = inbound_budget_bytes / (static_cast<std::size_t>(ranks_on_host - 1) * slot_bytes);
  return std::clamp(per_peer, min_slots, max_slots);
}

// Position of the channel from `sender` inside `receiver`'s segment (local indices).
std::size_t channel_index(int sender, int receiver) {
  return static_cast<std::size_t>(sender < receiver ? sender : sender - 1);
}

// A positive integer from the environment, or `fallback` when unset; a malformed value is an
// error naming the variable.
std::size_t size_from_environment(const char* variable, std::size_t fallback, std::size_t multiple_of) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || value == 0 || value > (std::size_t{1} << 30) || value % multiple_of != 0)
    throw std::invalid_argument(fmt::format("{}={} is not a positive multiple of {} up to 2^30; unset it or fix it",
                                            variable, text, multiple_of));
  return static_cast<std::size_t>(value);
}

// True when every rank of `node` succeeded; otherwise why_not explains (this rank's error first).
// `what` names the wait in a time-out.
bool all_succeeded(MPI_Comm node, const std::string& error, std::string& why_not, const MpiSetupWaits& waits,
                   std::string_view what) {
  int ok = error.empty() ? 1 : 0;
  MPI_Request request = MPI_REQUEST_NULL;
  waits.complete(MPI_Iallreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, node, &request), request, "MPI_Iallreduce",
                 what);
  if (ok != 0) return true;
  why_not = error.empty() ? "another rank of this host could not set up shared memory" : error;
  return false;
}

class NodeComm {
 public:
  NodeComm() = default;
  ~NodeComm() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;
  MPI_Comm comm = MPI_COMM_NULL;
};

// Unlinks this rank's segment name when set-up ends, however it ends: by then every rank of the
// host has mapped it or given up, or the job is ending.
class UnlinkOnExit {
 public:
  explicit UnlinkOnExit(std::string name) : name_(std::move(name)) {}
  ~UnlinkOnExit() { shm_unlink(name_.c_str()); }
  UnlinkOnExit(const UnlinkOnExit&) = delete;
  UnlinkOnExit& operator=(const UnlinkOnExit&) = delete;

 private:
  std::string name_;
};

}  // namespace

std::string new_segment_name(int local_rank) {
  std::random_device entropy;
  const std::uint64_t nonce = (std::uint64_t{entropy()} << 32) ^ entropy();
  return fmt::format("/ringlab-{}-{}-{:016x}", getpid(), local_rank, nonce);
}

void* map_shared_segment(const std::string& name, std::size_t bytes, bool create, std::string& error) {
  const int fd = create ? shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600) : shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    error = fmt::format("shm_open({}) failed: {}", name, std::strerror(errno));
    return nullptr;
  }
  if (create) {
    if (const int code = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); code != 0) {
      error = fmt::format("reserving {} bytes of shared memory for {} failed: {} (is /dev/shm full or small?)", bytes,
                          name, std::strerror(code));
      close(fd);
      return nullptr;
    }
  }
  void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (address == MAP_FAILED) {
    error = fmt::format("mmap of {} bytes of {} failed: {}", bytes, name, std::strerror(errno));
    return nullptr;
  }
  return address;
}

std::unique_ptr<MpiNodeSharedMemory> MpiNodeSharedMemory::create(MPI_Comm comm, bool wanted, std::string& why_not,
                                                                 std::chrono::milliseconds timeout) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MpiSetupWaits waits{rank, timeout};
  MPI_Request request = MPI_REQUEST_NULL;
  // MPI_Comm_split_type has no nonblocking form: a polled barrier first, so that it is entered
  // only once every rank has come this far, and a guard that ends the process should it still hang.
  waits.complete(MPI_Ibarrier(comm, &request), request, "MPI_Ibarrier",
                 "shared-memory set-up: waiting for every rank to arrive before finding the ranks of this host");
  NodeComm node;
  {
    const SetupCallGuard guard(rank, Clock::now() + timeout,
                               waits.timed_out("shared-memory set-up: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) did "
                                               "not return (finding the ranks of this host)"));
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node.comm) != MPI_SUCCESS) {
      why_not = "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed";
      return nullptr;
    }
  }
  int ranks_on_host = 0;
  int me = 0;
  MPI_Comm_size(node.comm, &ranks_on_host);
  MPI_Comm_rank(node.comm, &me);
  int everyone_wants = wanted ? 1 : 0;
  waits.complete(MPI_Iallreduce(MPI_IN_PLACE, &everyone_wants, 1, MPI_INT, MPI_MIN, node.comm, &request), request,
                 "MPI_Iallreduce",
                 "shared-memory set-up: asking the other ranks of this host whether they use shared memory");
  if (ranks_on_host < 2) {
    why_not = "no other rank on this host";
    return nullptr;
  }
  if (everyone_wants == 0) {
    why_not = "disabled by RINGLAB_SHM_DISABLE";
    return nullptr;
  }
  std::vector<int> members(static_cast<std::size_t>(ranks_on_host));
  waits.complete(MPI_Iallgather(&rank, 1, MPI_INT, members.data(), 1, MPI_INT, node.comm, &request), request,
                 "MPI_Iallgather", "shared-memory set-up: exchanging the ranks of this host");

  std::unique_ptr<MpiNodeSharedMemory> memory(new MpiNodeSharedMemory());
  memory->ranks_on_host_ = ranks_on_host;
  // Tuning knobs, like NCCL_BUFFSIZE; the host's first rank decides so all ranks lay out alike.
  std::array<std::uint64_t, 2> layout{};
  std::string layout_error;
  try {
    layout[1] = size_from_environment("RINGLAB_SHM_SLOT_BYTES", slot_bytes_for(ranks_on_host), ShmChannel::alignment);
    layout[0] = size_from_environment("RINGLAB_SHM_SLOTS", slots_for(ranks_on_host, layout[1]), 1);
  } catch (const std::invalid_argument& error) {
    layout_error = error.what();
  }
  if (!all_succeeded(node.comm, layout_error, why_not, waits,
                     "shared-memory set-up: checking the slot layout on every rank of this host"))
    return nullptr;
  waits.complete(MPI_Ibcast(layout.data(), 2, MPI_UINT64_T, 0, node.comm, &request), request, "MPI_Ibcast",
                 "shared-memory set-up: receiving the slot layout from the first rank of this host");
  memory->slots_ = layout[0];
  memory->slot_bytes_ = layout[1];
  const std::size_t channel_bytes = ShmChannel::footprint(memory->slots_, memory->slot_bytes_);
  const std::size_t segment_bytes = static_cast<std::size_t>(ranks_on_host - 1) * channel_bytes;
  memory->mappings_.resize(static_cast<std::size_t>(ranks_on_host));

  const std::string own_name = new_segment_name(me);
  std::string error;
  void* own = map_shared_segment(own_name, segment_bytes, /*create=*/true, error);
  const UnlinkOnExit unlink_own(own_name);  // also when it was created but not reserved or mapped
  if (own != nullptr) memory->mappings_[static_cast<std::size_t>(me)] = {own, segment_bytes};
  if (!all_succeeded(node.comm, error, why_not, waits,
                     "shared-memory set-up: waiting for the other ranks of this host to create their segments"))
    return nullptr;

  std::array<char, host_name_bytes> own_name_buffer{};
  std::copy_n(own_name.begin(), std::min(own_name.size(), host_name_bytes - 1), own_name_buffer.begin());
  std::vector<char> names(host_name_bytes * static_cast<std::size_t>(ranks_on_host));
  waits.complete(MPI_Iallgather(own_name_buffer.data(), static_cast<int>(host_name_bytes), MPI_CHAR, names.data(),
                                static_cast<int>(host_name_bytes), MPI_CHAR, node.comm, &request),
                 request, "MPI_Iallgather", "shared-memory set-up: exchanging the segment names of this host");
  for (int peer = 0; peer < ranks_on_host && error.empty(); ++peer) {
    if (peer == me) continue;
    const std::string peer_name(&names[host_name_bytes * static_cast<std::size_t>(peer)]);
    if (void* address = map_shared_segment(peer_name, segment_bytes, /*create=*/false, error))
      memory->mappings_[static_cast<std::size_t>(peer)] = {address, segment_bytes};
  }
  if (!all_succeeded(node.comm, error, why_not, waits,
                     "shared-memory set-up: waiting for the other ranks of this host to map their segments"))
    return nullptr;

  memory->inbound_.resize(static_cast<std::size_t>(size));
  memory->outbound_.resize(static_cast<std::size_t>(size));
  auto* own_base = static_cast<std::byte*>(own);
  for (int peer = 0; peer < ranks_on_host; ++peer) {
    if (peer == me) continue;
    const auto peer_rank = static_cast<std::size_t>(members[static_cast<std::size_t>(peer)]);
    auto* peer_base = static_cast<std::byte*>(memory->mappings_[static_cast<std::size_t>(peer)].address);
    memory->inbound_[peer_rank] = std::make_unique<ShmChannel>(own_base + channel_index(peer, me) * channel_bytes,
                                                               memory->slots_, memory->slot_bytes_);
    memory->outbound_[peer_rank] = std::make_unique<ShmChannel>(peer_base + channel_index(me, peer) * channel_bytes,
                                                                memory->slots_, memory->slot_bytes_);
  }
  return memory;
}

MpiNodeSharedMemory::~MpiNodeSharedMemory() {
  for (const Mapping& mapping : mappings_)
    if (mapping.address != nullptr) munmap(mapping.address, mapping.bytes);
}

std::vector<ShmChannel*> MpiNodeSharedMemory::inbound() const {
  std::vector<ShmChannel*> channels;
  for (const auto& channel : inbound_) channels.push_back(channel.get());
  return channels;
}

std::vector<ShmChannel*> MpiNodeSharedMemory::outbound() const {
  std::vector<ShmChannel*> channels;
  for (const auto& channel : outbound_) channels.push_back(channel.get());
  return channels;
}

}  // namespace ringlab
