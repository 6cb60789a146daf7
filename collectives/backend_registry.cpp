// The backend table, made from collectives/backends.def, and its look-ups.
#include "collectives/backend_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace ringlab {

std::span<const BackendInfo> backends() {
  static const BackendInfo table[] = {
#define RINGLAB_BACKEND RINGLAB_BACKEND_INFO
#include "collectives/backends.def"
#undef RINGLAB_BACKEND
  };
  return table;
}

namespace {
std::vector<std::string> names_of(std::span<const BackendInfo> table) {
  std::vector<std::string> names;
  for (const BackendInfo& info : table) names.emplace_back(info.name);
  return names;
}
}  // namespace

std::vector<std::string> backend_names() { return names_of(backends()); }

const BackendInfo* backend_named(std::string_view name, std::span<const BackendInfo> table) {
  for (const BackendInfo& info : table)
    if (info.name == name) return &info;
  return nullptr;
}

const BackendInfo& find_backend(std::string_view name, std::span<const BackendInfo> table) {
  if (const BackendInfo* info = backend_named(name, table)) return *info;
  throw std::invalid_argument(
      fmt::format("unknown backend '{}'; valid backends: auto, {}", name, fmt::join(names_of(table), ", ")));
}

bool backend_uses_devices(std::string_view name) {
  const BackendInfo* info = backend_named(name);
  return info != nullptr && info->uses_devices();
}

const BackendInfo* native_allreduce_owner(std::string_view algorithm) {
  if (algorithm.empty()) return nullptr;
  for (const BackendInfo& info : backends())
    if (info.native_allreduce == algorithm) return &info;
  return nullptr;
}

bool is_native_allreduce(std::string_view algorithm) { return native_allreduce_owner(algorithm) != nullptr; }

std::string_view native_allreduce_of(std::string_view backend) {
  const BackendInfo* info = backend_named(backend);
  return info ? info->native_allreduce : std::string_view{};
}

}  // namespace ringlab
