#include "training_harness/data_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ringlab::training {

namespace fs = std::filesystem;

std::vector<fs::path> data_files_in(const fs::path& folder, const std::string& prefix, const std::string& make_command) {
  if (!fs::is_directory(folder))
    throw std::invalid_argument(fmt::format("data folder '{}' does not exist", folder.string()));
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with(prefix) && name.ends_with(".bin")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw std::invalid_argument(fmt::format("no {}*.bin files in '{}'; write synthetic ones with `{} --out {}`", prefix,
                                            folder.string(), make_command, folder.string()));
  return files;
}

}  // namespace ringlab::training
