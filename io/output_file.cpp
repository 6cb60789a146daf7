#include "io/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <streambuf>

namespace ringlab::io {

namespace {

// strerror, with what ENOSPC and EDQUOT mean for the user.
std::string system_reason(int error) {
  std::string reason = std::strerror(error);
  if (error == ENOSPC) reason += " (the disk is full)";
  if (error == EDQUOT) reason += " (the disk quota is used up)";
  return reason;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// The folder a target lives in ("." for a bare name).
std::filesystem::path folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

// Refuses a target that exists and is not a regular file (lstat: a link is refused, not followed).
// Returns whether it exists.
bool check_existing_target(const std::string& path, std::string_view option) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return false;
    throw std::invalid_argument(fmt::format("{} '{}': {}", option, path, system_reason(errno)));
  }
  if (!S_ISREG(status.st_mode))
    throw std::invalid_argument(fmt::format(
        "{} '{}' is {}; ringlab writes only regular files and never replaces anything else: give a file name",
        option, path, kind_of(status.st_mode)));
  return true;
}

// A stream buffer over a file descriptor that remembers the first write error.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int descriptor) : descriptor_(descriptor) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  DescriptorBuffer(const DescriptorBuffer&) = delete;
  DescriptorBuffer& operator=(const DescriptorBuffer&) = delete;
  ~DescriptorBuffer() override = default;

  // Writes what is buffered; false (and error() set) on failure.
  bool flush_all() { return drain() && error_ == 0; }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type character) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(character, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(character);
      pbump(1);
    }
    return traits_type::not_eof(character);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* next = pbase();
    while (error_ == 0 && next < pptr()) {
      const ssize_t written = ::write(descriptor_, next, static_cast<std::size_t>(pptr() - next));
      if (written < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
      } else {
        next += written;
      }
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }

  int descriptor_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

// Owns an open descriptor.
class Descriptor {
 public:
  explicit Descriptor(int descriptor) : descriptor_(descriptor) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }
  int get() const { return descriptor_; }
  // Closes now; the errno of a failed close, else 0.
  int close() {
    const int result = ::close(descriptor_);
    descriptor_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int descriptor_;
};

// A new file in `folder` under a random name no one else has: exclusive creation, links not
// followed, 0644 less the umask. Retries on a name that exists (planted or not).
std::pair<std::filesystem::path, int> create_temporary(const std::filesystem::path& folder, const std::string& target) {
  std::random_device entropy;
  std::mt19937_64 generator((static_cast<std::uint64_t>(entropy()) << 32) ^ entropy() ^ static_cast<std::uint64_t>(::getpid()));
  const std::string base = std::filesystem::path(target).filename().string();
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::filesystem::path candidate = folder / fmt::format(".{}.{:016x}.tmp", base, generator());
    const int descriptor = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (descriptor >= 0) return {candidate, descriptor};
    if (errno != EEXIST)
      throw std::runtime_error(fmt::format("cannot write '{}': cannot create a file in folder '{}': {}", target,
                                           folder.string(), system_reason(errno)));
  }
  throw std::runtime_error(fmt::format("cannot write '{}': 64 random temporary names in '{}' were all taken", target,
                                       folder.string()));
}

void write_to_standard_output(const std::function<void(std::ostream&)>& write, int descriptor) {
  std::fflush(stdout);
  DescriptorBuffer buffer(descriptor);
  std::ostream stream(&buffer);
  write(stream);
  if (!buffer.flush_all())
    throw std::runtime_error(fmt::format("cannot write to standard output: {}", system_reason(buffer.error())));
}

void fsync_folder(const std::filesystem::path& folder) {
  const int descriptor = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor < 0) return;  // the rename is done; durability of the entry is best effort
  ::fsync(descriptor);
  ::close(descriptor);
}

}  // namespace

bool is_standard_output(std::string_view path) { return path == standard_output_path; }

void check_output_path(const std::string& path, bool force, std::string_view option, bool stdout_allowed) {
  if (path.empty())
    throw std::invalid_argument(fmt::format("{}: the path is empty; give a file name{}", option,
                                            stdout_allowed ? ", or - for standard output" : ""));
  if (is_standard_output(path)) {
    if (stdout_allowed) return;
    throw std::invalid_argument(fmt::format("{} '-': this output is not text and cannot go to standard output; give a file name", option));
  }
  if (check_existing_target(path, option) && !force)
    throw std::invalid_argument(fmt::format("{} '{}' already exists; pass --force to overwrite it", option, path));
  const std::filesystem::path folder = folder_of(path);
  struct stat status {};
  if (::stat(folder.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
    throw std::invalid_argument(fmt::format("cannot write '{}': folder '{}' does not exist", path, folder.string()));
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument(fmt::format("cannot write '{}': folder '{}': {}", path, folder.string(), system_reason(errno)));
}

void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write, int standard_output) {
  if (path.empty()) throw std::invalid_argument("an output path is empty; give a file name, or - for standard output");
  if (is_standard_output(path)) return write_to_standard_output(write, standard_output);
  const std::filesystem::path folder = folder_of(path);
  // Not a structured binding: clang 14 (the fuzz preset) cannot capture one in the lambda below.
  const std::pair<std::filesystem::path, int> created = create_temporary(folder, path);
  const std::filesystem::path& temporary = created.first;
  Descriptor descriptor(created.second);
  const auto fail = [&](int error) {
    ::unlink(temporary.c_str());
    throw std::runtime_error(fmt::format("cannot write '{}': {}; the previous file, if any, is untouched", path,
                                         system_reason(error)));
  };
  try {
    DescriptorBuffer buffer(descriptor.get());
    std::ostream stream(&buffer);
    write(stream);
    if (!buffer.flush_all()) fail(buffer.error());
    if (!stream) fail(EIO);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
  if (::fsync(descriptor.get()) != 0) fail(errno);
  if (const int error = descriptor.close(); error != 0) fail(error);
  try {
    check_existing_target(path, "output file");  // planted since the start? refuse it, do not replace it
  } catch (const std::exception& error) {
    ::unlink(temporary.c_str());
    throw std::runtime_error(error.what());
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail(errno);
  fsync_folder(folder);
}

void write_output_file(const std::string& path, std::string_view content, int standard_output) {
  write_output_file(
      path, [content](std::ostream& stream) { stream.write(content.data(), static_cast<std::streamsize>(content.size())); },
      standard_output);
}

void write_json_file(const std::string& path, const nlohmann::json& document, int indent, int standard_output) {
  write_output_file(path, document.dump(indent) + "\n", standard_output);
}

StandardOutputForData::StandardOutputForData(bool active) {
  if (!active) return;
  std::fflush(stdout);
  data_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (data_ < 0) throw std::runtime_error(fmt::format("cannot keep standard output for the data: {}", system_reason(errno)));
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
}

StandardOutputForData::~StandardOutputForData() {
  if (data_ < 0) return;
  std::fflush(stdout);
  ::dup2(data_, STDOUT_FILENO);
  ::close(data_);
}

}  // namespace ringlab::io
