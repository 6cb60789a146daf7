// The backend registry: what the rest of the suite knows about each backend, by name, in one table
// made from the lines of collectives/backends.def, the way algorithms/registry.cpp lists the
// algorithms. cli/launch.cpp finds each backend's launcher by the same line.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

// How a backend's ranks come to be: threads of this process (--ranks), or one process per rank
// started by an MPI launcher (mpiexec, mpirun, srun).
enum class RankStart { threads, launcher };

// Where a backend's collective buffers live: host memory, device memory, or host memory unless the
// job asks for device buffers (--gpu-buffers 1).
enum class BufferMemory { host, device, host_or_device };

struct BackendInfo {
  std::string_view name;
  RankStart ranks = RankStart::threads;
  BufferMemory buffers = BufferMemory::host;
  // The backend's own all-reduce as the suite names it among the algorithms ("mpi-native"), empty
  // for none.
  std::string_view native_allreduce;

  bool uses_devices() const { return buffers == BufferMemory::device; }
  bool ranks_are_threads() const { return ranks == RankStart::threads; }
};

// The names of the native baselines: MPI_Allreduce through the mpi backend, ncclAllReduce
// through the nccl backend.
inline constexpr std::string_view mpi_native = "mpi-native";
inline constexpr std::string_view nccl_native = "nccl-native";

// A line of collectives/backends.def as a BackendInfo, for a table's initializer:
//   #define RINGLAB_BACKEND RINGLAB_BACKEND_INFO
//   #include "collectives/backends.def"
//   #undef RINGLAB_BACKEND
#define RINGLAB_BACKEND_INFO(id, name, ranks, buffers, native_allreduce) \
  ::ringlab::BackendInfo{name, ranks, buffers, native_allreduce},

// Every backend, in the order help texts list them (that of collectives/backends.def).
std::span<const BackendInfo> backends();
std::vector<std::string> backend_names();
// Throws std::invalid_argument listing the valid names (and "auto", which cli/launch.cpp resolves)
// of `table`: the registry unless a test hands it one with a toy backend added.
const BackendInfo& find_backend(std::string_view name, std::span<const BackendInfo> table = backends());
// The same without throwing: nullptr for a name no backend has (a report written elsewhere).
const BackendInfo* backend_named(std::string_view name, std::span<const BackendInfo> table = backends());

// Whether the named backend's collective buffers are always device memory; false for a name no
// backend has (a report's "backend" may come from elsewhere).
bool backend_uses_devices(std::string_view name);

// The one answer to "is this a native baseline": the backend whose own all-reduce `algorithm` is,
// nullptr for a schedule-based algorithm (or any other name).
const BackendInfo* native_allreduce_owner(std::string_view algorithm);
bool is_native_allreduce(std::string_view algorithm);
// The native baseline of a backend ("mpi" -> mpi-native), empty for none or an unknown name.
std::string_view native_allreduce_of(std::string_view backend);

}  // namespace ringlab
