// What a report says about the machine it ran on, and its memory-bandwidth bound (memcpy).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ringlab::report {

struct MachineInfo {
  std::string hostname;
  std::string cpu_model;
  int cores = 0;
  std::int64_t memory_bytes = 0;
  std::string os;
  std::string compiler;
  std::optional<std::string> mpi_library;
  // Filled by the caller when built with CUDA (cuda::describe_gpus): versions and one line per GPU.
  std::optional<std::string> cuda_version;
  std::optional<std::string> nccl_version;
  std::vector<std::string> gpus;
  double memcpy_gbps = 0.0;  // bytes copied per second / 1e9, measured in the same run
};

MachineInfo describe_machine(std::optional<std::string> mpi_library);

// Best of a few std::memcpy runs over `bytes`-sized buffers (touched first), in GB/s copied.
double measure_memcpy_gbps(std::size_t bytes, int repetitions);

// MemAvailable from /proc/meminfo, or -1 when unknown.
std::int64_t available_memory_bytes();

nlohmann::json to_json(const MachineInfo& machine);

}  // namespace ringlab::report
