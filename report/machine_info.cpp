#include "report/machine_info.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>
#include <vector>

namespace ringlab::report {

namespace {

// The value after "key" and a colon on the first matching line of a /proc-style file.
std::string field(const char* path, std::string_view key) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return {};
}

std::string os_name() {
  std::ifstream file("/etc/os-release");
  std::string line;
  while (std::getline(file, line))
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string value = line.substr(12);
      value.erase(std::remove(value.begin(), value.end(), '"'), value.end());
      return value;
    }
  return "unknown";
}

std::int64_t kib_field(const char* key) {
  const std::string value = field("/proc/meminfo", key);
  return value.empty() ? -1 : std::stoll(value) * 1024;
}

}  // namespace

std::int64_t available_memory_bytes() { return kib_field("MemAvailable"); }

double measure_memcpy_gbps(std::size_t bytes, int repetitions) {
  std::vector<char> source(bytes, 1);
  std::vector<char> target(bytes, 0);
  double best = 0.0;
  for (int i = 0; i < repetitions; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(target.data(), source.data(), bytes);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > 0) best = std::max(best, static_cast<double>(bytes) / seconds / 1e9);
    source[static_cast<std::size_t>(i) % bytes] = static_cast<char>(target[bytes / 2] + 1);  // keep the copy observable
  }
  return best;
}

MachineInfo describe_machine(std::optional<std::string> mpi_library) {
  MachineInfo machine;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) machine.hostname = host;
  machine.cpu_model = field("/proc/cpuinfo", "model name");
  if (machine.cpu_model.empty()) machine.cpu_model = "unknown";
  machine.cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  machine.memory_bytes = std::max<std::int64_t>(0, kib_field("MemTotal"));  // 0 when /proc/meminfo is unreadable
  machine.os = os_name();
#if defined(__clang__)
  machine.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  machine.compiler = std::string("g++ ") + __VERSION__;
#else
  machine.compiler = "unknown";
#endif
  machine.mpi_library = std::move(mpi_library);
  return machine;
}

nlohmann::json to_json(const MachineInfo& machine) {
  return {{"hostname", machine.hostname},
          {"cpu_model", machine.cpu_model},
          {"cores", machine.cores},
          {"memory_bytes", machine.memory_bytes},
          {"os", machine.os},
          {"compiler", machine.compiler},
          {"mpi_library", machine.mpi_library ? nlohmann::json(*machine.mpi_library) : nlohmann::json(nullptr)},
          {"cuda_version", machine.cuda_version ? nlohmann::json(*machine.cuda_version) : nlohmann::json(nullptr)},
          {"nccl_version", machine.nccl_version ? nlohmann::json(*machine.nccl_version) : nlohmann::json(nullptr)},
          {"gpus", machine.gpus},
          {"memcpy_gbps", machine.memcpy_gbps}};
}

}  // namespace ringlab::report
