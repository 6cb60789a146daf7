#include "collectives/backends/mpi_registered_buffer.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/backends/mpi_shared_memory.hpp"

namespace ringlab {

namespace {

constexpr std::size_t buffer_name_bytes = 64;

// What each rank tells the others about its segment.
struct SegmentRecord {
  std::array<char, buffer_name_bytes> name{};
  std::uint64_t bytes = 0;
  std::int32_t ok = 0;
  std::int32_t padding = 0;
};

// Unlinks a shared-memory name (if any) when it goes out of scope.
struct SegmentName {
  explicit SegmentName(std::string segment) : name(std::move(segment)) {}
  std::string name;
  SegmentName(const SegmentName&) = delete;
  SegmentName& operator=(const SegmentName&) = delete;
  ~SegmentName() {
    if (!name.empty()) shm_unlink(name.c_str());
  }
};

struct Mapping {
  void* address = nullptr;
  std::size_t bytes = 0;
};

class MappedSegments {
 public:
  MappedSegments() = default;
  MappedSegments(const MappedSegments&) = delete;
  MappedSegments& operator=(const MappedSegments&) = delete;
  ~MappedSegments() {
    for (const Mapping& mapping : mappings)
      if (mapping.address != nullptr) munmap(mapping.address, mapping.bytes);
  }
  std::vector<Mapping> mappings;  // by rank; this rank's own segment included
};

class RegisteredSharedBuffer final : public CommBuffer {
 public:
  RegisteredSharedBuffer(ShmTransport& transport, std::int64_t region_id, std::size_t bytes,
                         std::unique_ptr<MappedSegments> segments, std::size_t own_index, int peers_mapped)
      : transport_(transport), region_id_(region_id), bytes_(bytes), segments_(std::move(segments)),
        own_(static_cast<std::byte*>(segments_->mappings[own_index].address)), peers_mapped_(peers_mapped) {}
  ~RegisteredSharedBuffer() override { transport_.remove_region(region_id_); }
  RegisteredSharedBuffer(const RegisteredSharedBuffer&) = delete;
  RegisteredSharedBuffer& operator=(const RegisteredSharedBuffer&) = delete;

  std::span<std::byte> bytes() override { return {own_, bytes_}; }
  bool registered() const override { return true; }
  std::string description() const override {
    return fmt::format("registered: shared memory mapped by the {} other ranks of this host, sends of at least {} KiB "
                       "read in place by the receiver (one copy)",
                       peers_mapped_, transport_.direct_min_bytes() >> 10);
  }

 private:
  ShmTransport& transport_;
  std::int64_t region_id_;
  std::size_t bytes_;
  std::unique_ptr<MappedSegments> segments_;
  std::byte* own_;
  int peers_mapped_;
};

std::size_t page_rounded(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return std::max<std::size_t>(page, (bytes + page - 1) / page * page);
}

}  // namespace

std::unique_ptr<CommBuffer> allocate_registered_buffer(MPI_Comm comm, ShmTransport* transport, std::int64_t region_id,
                                                       std::size_t bytes, const MpiCollectiveWait& wait) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto segments = std::make_unique<MappedSegments>();
  segments->mappings.resize(static_cast<std::size_t>(size));
  const std::size_t mapped_bytes = page_rounded(bytes);

  std::string error;
  const std::string own_name = transport ? new_segment_name(rank) : std::string();
  void* own = transport ? map_shared_segment(own_name, mapped_bytes, /*create=*/true, error) : nullptr;
  segments->mappings[static_cast<std::size_t>(rank)] = {own, mapped_bytes};
  SegmentRecord mine;
  std::copy_n(own_name.begin(), std::min(own_name.size(), buffer_name_bytes - 1), mine.name.begin());
  mine.bytes = mapped_bytes;
  mine.ok = own != nullptr || !transport ? 1 : 0;  // a rank without shared memory has nothing to set up
  std::vector<SegmentRecord> records(static_cast<std::size_t>(size));
  // Unlinked on every way out: once every rank has mapped it, or given up, the name is not needed.
  const SegmentName unlink_on_exit{transport ? own_name : std::string()};
  MPI_Request request = MPI_REQUEST_NULL;
  auto complete = [&](int code, const char* function, std::string_view what) {
    if (code != MPI_SUCCESS)
      throw CommunicationError(fmt::format("mpi backend: rank {}: {} failed ({})", rank, function, what));
    wait(request, what);
  };
  complete(MPI_Iallgather(&mine, sizeof(SegmentRecord), MPI_BYTE, records.data(), sizeof(SegmentRecord), MPI_BYTE,
                          comm, &request),
           "MPI_Iallgather", "buffer registration (exchanging segment names)");

  std::vector<std::span<const std::byte>> mapped_peers(static_cast<std::size_t>(size));
  int peers_mapped = 0;
  int ok = mine.ok;
  for (int peer = 0; peer < size && ok != 0; ++peer) {
    const SegmentRecord& record = records[static_cast<std::size_t>(peer)];
    if (peer == rank || !transport || !transport->reaches(peer)) continue;
    if (record.ok == 0) {
      ok = 0;
      error = fmt::format("rank {} could not create its segment", peer);
      break;
    }
    const std::string peer_name(record.name.data(), strnlen(record.name.data(), buffer_name_bytes));
    void* address = map_shared_segment(peer_name, record.bytes, /*create=*/false, error);
    if (address == nullptr) {
      ok = 0;
      break;
    }
    segments->mappings[static_cast<std::size_t>(peer)] = {address, record.bytes};
    mapped_peers[static_cast<std::size_t>(peer)] = {static_cast<const std::byte*>(address), record.bytes};
    ++peers_mapped;
  }
  int all_ok = ok;
  complete(MPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm, &request), "MPI_Iallreduce",
           "buffer registration (agreeing that every rank mapped every segment)");
  if (!transport) return make_heap_buffer(bytes, "heap memory, not registered: no other rank shares this host's memory");
  if (all_ok == 0) {
    return make_heap_buffer(bytes, fmt::format("heap memory, not registered: {}",
                                               error.empty() ? "another rank could not map shared memory" : error));
  }
  auto* own_bytes = static_cast<std::byte*>(own);
  transport->add_region(region_id, {own_bytes, mapped_bytes}, std::move(mapped_peers));
  return std::make_unique<RegisteredSharedBuffer>(*transport, region_id, bytes, std::move(segments),
                                                  static_cast<std::size_t>(rank), peers_mapped);
}

}  // namespace ringlab
