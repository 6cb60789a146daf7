// The one writer of every file ringlab makes (reports, traces, calibrations, profiles, data sets).
//
// A hostile local user who can write to the target's folder must not be able to make a command
// run as root write anywhere else, and a failure must never leave a torn or half-written file:
//   1. check_output_path, when the command starts (before any measurement): the path is not
//      empty; "-" is standard output; an existing target must be a regular file (a directory,
//      device, FIFO, socket or symlink is refused, even with --force) and is replaced only with
//      --force; its folder must exist and be writable.
//   2. write_output_file, at the end: the content goes to a new temporary file in the target's
//      folder, created exclusively under a random name (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0644
//      less the umask, so a link planted at any name is never followed), is flushed to disk
//      (fsync), and renamed over the target (rename replaces a link, never follows it). The
//      target is checked again just before the rename. Any error removes the temporary, leaves
//      the old file untouched and names the target with the system's reason ("No space left on
//      device (the disk is full)").
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <string_view>

namespace ringlab::io {

// The path that means standard output.
inline constexpr std::string_view standard_output_path = "-";

// True for "-".
bool is_standard_output(std::string_view path);

// Step 1 above. `option` names the flag in messages ("--json"). `stdout_allowed`: whether "-"
// may stand for standard output here (not for binary data). Throws std::invalid_argument.
void check_output_path(const std::string& path, bool force, std::string_view option = "--json",
                       bool stdout_allowed = true);

// Step 2 above: `write` fills a stream that goes to the temporary file, or for "-" to the
// descriptor `standard_output` (see StandardOutputForData). An exception from `write` removes the
// temporary and propagates. Throws std::runtime_error naming the target on an I/O error.
void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write,
                       int standard_output = 1);

// The same for text already in memory.
void write_output_file(const std::string& path, std::string_view content, int standard_output = 1);

// A JSON document, indented by `indent` (nlohmann's dump; -1 = one line), with a final newline.
void write_json_file(const std::string& path, const nlohmann::json& document, int indent = 1, int standard_output = 1);

// While one of a command's outputs is "-", everything else the process prints goes to standard
// error, so standard output carries that document alone (`ringlab bench --json - | jq`). Active
// only when `active`; restores standard output when it ends.
class StandardOutputForData {
 public:
  explicit StandardOutputForData(bool active);
  StandardOutputForData(const StandardOutputForData&) = delete;
  StandardOutputForData& operator=(const StandardOutputForData&) = delete;
  ~StandardOutputForData();
  // Where the document goes: the original standard output.
  int descriptor() const { return data_ >= 0 ? data_ : 1; }

 private:
  int data_ = -1;
};

}  // namespace ringlab::io
