#include "atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace ringlab::training {

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path temporary = fmt::format("{}.tmp.{}", path.string(), getpid());
  try {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) throw std::runtime_error(fmt::format("cannot write '{}'", temporary.string()));
    write(file);
    file.close();
    if (!file) throw std::runtime_error(fmt::format("writing '{}' failed", temporary.string()));
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace ringlab::training
