// The one output writer (io/output_file.hpp), as a hostile local user and a careless one would
// meet it (issue 27, point 1): links planted at the target are refused and never followed, devices,
// FIFOs and folders are never replaced, a failed write leaves the old file and no temporary, the
// temporary is a fresh regular file of mode 0644 less the umask, and "-" is standard output.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/output_file.hpp"

namespace ringlab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

template <class Error>
std::string writer_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "(no error)";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("ringlab-output-file-" + std::to_string(getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    victim_ = folder_ / "victim";
    std::ofstream(victim_) << "precious\n";
  }
  void TearDown() override { fs::remove_all(folder_); }

  // The names in the folder other than the victim and `keep`.
  std::vector<std::string> other_entries(const std::vector<std::string>& keep) const {
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder_)) {
      const std::string name = entry.path().filename().string();
      if (name != "victim" && std::find(keep.begin(), keep.end(), name) == keep.end()) names.push_back(name);
    }
    return names;
  }

  fs::path folder_;
  fs::path victim_;
};

TEST_F(OutputFile, WritesTheContentWithMode0644LessTheUmaskAndLeavesNoTemporary) {
  const std::string target = (folder_ / "r.json").string();
  io::check_output_path(target, false);
  io::write_output_file(target, std::string_view("{}\n"));
  EXPECT_EQ(read_text(target), "{}\n");
  struct stat status {};
  ASSERT_EQ(::lstat(target.c_str(), &status), 0);
  EXPECT_TRUE(S_ISREG(status.st_mode));
  const mode_t mask = ::umask(022);
  ::umask(mask);
  EXPECT_EQ(status.st_mode & 0777, 0644 & ~mask);
  EXPECT_EQ(other_entries({"r.json"}), std::vector<std::string>{});
}

TEST_F(OutputFile, ALinkAtTheTargetIsRefusedEvenWithForceAndItsTargetUntouched) {
  const fs::path link = folder_ / "r.json";
  fs::create_symlink(victim_, link);
  EXPECT_THAT(writer_error_of<std::invalid_argument>([&] { io::check_output_path(link.string(), true); }),
              HasSubstr("--json '" + link.string() + "' is a symbolic link"));
  // Planted after the start-up check: the writer refuses it too, and follows nothing.
  EXPECT_THAT(writer_error_of<std::runtime_error>([&] { io::write_output_file(link.string(), std::string_view("evil")); }),
              HasSubstr("is a symbolic link"));
  EXPECT_EQ(read_text(victim_), "precious\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(other_entries({"r.json"}), std::vector<std::string>{});
}

TEST_F(OutputFile, ADanglingLinkIsRefusedWithoutForce) {
  const fs::path link = folder_ / "dangling.json";
  fs::create_symlink(folder_ / "nowhere", link);
  EXPECT_THAT(writer_error_of<std::invalid_argument>([&] { io::check_output_path(link.string(), false); }),
              HasSubstr("is a symbolic link"));
  EXPECT_FALSE(fs::exists(folder_ / "nowhere"));
}

TEST_F(OutputFile, DevicesFifosAndFoldersAreNeverReplaced) {
  EXPECT_THAT(writer_error_of<std::invalid_argument>([] { io::check_output_path("/dev/null", true); }),
              HasSubstr("'/dev/null' is a device"));
  const fs::path fifo = folder_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(writer_error_of<std::invalid_argument>([&] { io::check_output_path(fifo.string(), true); }),
              HasSubstr("is a FIFO"));
  EXPECT_THAT(writer_error_of<std::invalid_argument>([&] { io::check_output_path(folder_.string(), true); }),
              HasSubstr("is a directory"));
  EXPECT_THAT(writer_error_of<std::runtime_error>([&] { io::write_output_file(fifo.string(), std::string_view("x")); }),
              HasSubstr("is a FIFO"));
  struct stat status {};
  ASSERT_EQ(::lstat(fifo.c_str(), &status), 0);
  EXPECT_TRUE(S_ISFIFO(status.st_mode));
  EXPECT_EQ(other_entries({"fifo"}), std::vector<std::string>{});
}

TEST_F(OutputFile, AnExistingFileNeedsForceAndAMissingFolderIsNamed) {
  const fs::path existing = folder_ / "old.json";
  std::ofstream(existing) << "old\n";
  EXPECT_THAT(writer_error_of<std::invalid_argument>([&] { io::check_output_path(existing.string(), false); }),
              HasSubstr("already exists; pass --force to overwrite it"));
  io::check_output_path(existing.string(), true);
  io::write_output_file(existing.string(), std::string_view("new\n"));
  EXPECT_EQ(read_text(existing), "new\n");
  EXPECT_THAT(writer_error_of<std::invalid_argument>([&] { io::check_output_path((folder_ / "no" / "r.json").string(), false); }),
              HasSubstr("folder '" + (folder_ / "no").string() + "' does not exist"));
}

TEST_F(OutputFile, EmptyPathsAreRefusedAndTheDashIsStandardOutputWhereAllowed) {
  EXPECT_THAT(writer_error_of<std::invalid_argument>([] { io::check_output_path("", false, "--trace"); }),
              HasSubstr("--trace: the path is empty; give a file name, or - for standard output"));
  io::check_output_path("-", false);
  EXPECT_THAT(writer_error_of<std::invalid_argument>([] { io::check_output_path("-", false, "--out file", false); }),
              HasSubstr("cannot go to standard output"));
  EXPECT_FALSE(fs::exists("-"));
}

TEST_F(OutputFile, TheDashWritesToTheGivenDescriptor) {
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  io::write_output_file("-", std::string_view("to the pipe\n"), pipe_ends[1]);
  ::close(pipe_ends[1]);
  char buffer[64] = {};
  const ssize_t got = ::read(pipe_ends[0], buffer, sizeof buffer - 1);
  ::close(pipe_ends[0]);
  EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(got > 0 ? got : 0)), "to the pipe\n");
}

TEST_F(OutputFile, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  const fs::path existing = folder_ / "old.json";
  std::ofstream(existing) << "old\n";
  EXPECT_THROW(io::write_output_file(existing.string(),
                                     [](std::ostream& out) {
                                       out << "half";
                                       throw std::runtime_error("the producer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(read_text(existing), "old\n");
  EXPECT_EQ(other_entries({"old.json"}), std::vector<std::string>{});
}

TEST_F(OutputFile, TheTemporaryIsAFreshRegularFileInTheTargetsFolder) {
  const fs::path target = folder_ / "r.json";
  // The names writers used to use, planted: none is followed or reused.
  for (const std::string& planted : std::vector<std::string>{"r.json.tmp", "r.json.tmp." + std::to_string(getpid())})
    fs::create_symlink(victim_, folder_ / planted);
  std::vector<std::string> seen;
  io::write_output_file(target.string(), [&](std::ostream& out) {
    out << "data\n";
    for (const fs::directory_entry& entry : fs::directory_iterator(folder_))
      if (!fs::is_symlink(entry.symlink_status()) && entry.path().filename() != "victim")
        seen.push_back(entry.path().filename().string());
  });
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_THAT(seen[0], Not(HasSubstr("r.json.tmp")));
  EXPECT_EQ(read_text(target), "data\n");
  EXPECT_EQ(read_text(victim_), "precious\n");
  EXPECT_FALSE(fs::exists(folder_ / seen[0]));
}

}  // namespace
}  // namespace ringlab
