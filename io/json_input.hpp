// Reading a JSON input file (topology, schedule, bench report, calibration, profile), the same
// way for every reader:
//   1. the path must name a regular file: a directory, FIFO, socket or device is refused by its
//      kind ("is a directory"), a missing one as "does not exist";
//   2. at most max_json_input_bytes (512 MiB, docs/reliability.md "Input limits"), checked before
//      reading;
//   3. the whole file is one JSON document: trailing text after it is refused;
//   4. nlohmann's errors become one message naming the file, the line and column and what to fix
//      ("number overflow parsing '1e999'" included).
// Every message starts "<what> '<path>'" and is a std::invalid_argument.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace ringlab::io {

inline constexpr std::uintmax_t max_json_input_bytes = std::uintmax_t{512} << 20;

// `what` names the kind of file in messages ("topology file").
nlohmann::json read_json_input(const std::string& path, std::string_view what);

// The same, keeping each object's keys in the file's order (a file whose order means something,
// such as MPICH's selection tree).
nlohmann::ordered_json read_ordered_json_input(const std::string& path, std::string_view what);

// Steps 3 and 4 for text already in memory; `source` names it in messages ("topology file 'x.json'").
nlohmann::json parse_json_text(std::string_view text, std::string_view source);

// Steps 1 and 2: the file's whole text (nccl-tests' text output is read this way too).
std::string read_text_input(const std::string& path, std::string_view what);

// Step 1 alone: throws unless `path` is a regular file (following links).
void require_regular_file(const std::string& path, std::string_view what);

}  // namespace ringlab::io
