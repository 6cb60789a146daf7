// Finding a dataset's files in a folder: the CIFAR-10 and mini-ImageNet readers list theirs alike.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ringlab::training {

// The regular files `PREFIX*.bin` in `folder`, in name order. Throws std::invalid_argument when
// the folder does not exist or holds none, naming `make_command` (e.g. "ringlab make-cifar") as
// the way to write synthetic ones.
std::vector<std::filesystem::path> data_files_in(const std::filesystem::path& folder, const std::string& prefix,
                                                 const std::string& make_command);

}  // namespace ringlab::training
