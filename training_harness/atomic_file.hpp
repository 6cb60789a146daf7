// Writing a file so that a failure never leaves it half-written: the content goes to a
// temporary file in the same folder, which is renamed over the target only once complete.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace ringlab::training {

// Calls `write` on a binary stream to `path`.tmp.PID, then renames it to `path`; on a write
// error or an exception the temporary file is removed and the error names it.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace ringlab::training
