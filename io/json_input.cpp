#include "io/json_input.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/printable.hpp"

namespace ringlab::io {

namespace {

// "line 3, column 7" of the byte at `offset` (1-based, as editors count).
std::string line_and_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return fmt::format("line {}, column {}", line, offset - line_start + 1);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at ...: " prefix.
std::string reason_of(const nlohmann::json::exception& error) {
  std::string_view text = error.what();
  if (const std::size_t bracket = text.find("] "); text.starts_with("[json.exception.") && bracket != std::string_view::npos)
    text.remove_prefix(bracket + 2);
  if (const std::size_t colon = text.find(": "); text.starts_with("parse error") && colon != std::string_view::npos)
    text.remove_prefix(colon + 2);
  return printable(text);
}

}  // namespace

void require_regular_file(const std::string& path, std::string_view what) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  const std::string named = fmt::format("{} '{}'", what, printable(path));
  using std::filesystem::file_type;
  switch (status.type()) {
    case file_type::regular:
      return;
    case file_type::not_found:
      throw std::invalid_argument(fmt::format("{} does not exist; check the path", named));
    case file_type::directory:
      throw std::invalid_argument(fmt::format("{} is a directory; give a JSON file", named));
    case file_type::fifo:
      throw std::invalid_argument(fmt::format("{} is a FIFO; give a regular JSON file", named));
    case file_type::socket:
      throw std::invalid_argument(fmt::format("{} is a socket; give a regular JSON file", named));
    case file_type::block:
    case file_type::character:
      throw std::invalid_argument(fmt::format("{} is a device; give a regular JSON file", named));
    default:
      throw std::invalid_argument(
          fmt::format("cannot read {}: {}", named, error ? error.message() : std::string("not a regular file")));
  }
}

namespace {

template <typename Json>
Json parse_as(std::string_view text, std::string_view source) {
  try {
    return Json::parse(text.begin(), text.end());  // the whole text: trailing junk is an error
  } catch (const nlohmann::json::parse_error& error) {
    throw std::invalid_argument(fmt::format(
        "{} is not valid JSON: at {} (byte {}): {}; the file must hold exactly one JSON document", source,
        line_and_column(text, error.byte == 0 ? 0 : error.byte - 1), error.byte, reason_of(error)));
  } catch (const nlohmann::json::exception& error) {  // "number overflow parsing '1e999'" (out_of_range.406)
    throw std::invalid_argument(fmt::format("{} is not usable JSON: {}; numbers must lie within +-1.7e308", source,
                                            reason_of(error)));
  }
}

}  // namespace

std::string read_text_input(const std::string& path, std::string_view what) {
  require_regular_file(path, what);
  const std::string named = fmt::format("{} '{}'", what, printable(path));
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  if (error) throw std::invalid_argument(fmt::format("cannot read {}: {}", named, error.message()));
  if (bytes > max_json_input_bytes)
    throw std::invalid_argument(
        fmt::format("{} has {} bytes; the limit is {} (512 MiB)", named, bytes, max_json_input_bytes));
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument(fmt::format("cannot open {}; check its permissions", named));
  std::string text;
  text.reserve(static_cast<std::size_t>(bytes));
  text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (file.bad()) throw std::invalid_argument(fmt::format("cannot read {}: an I/O error", named));
  if (text.size() > max_json_input_bytes)  // grew while read
    throw std::invalid_argument(fmt::format("{} has over {} bytes (512 MiB)", named, max_json_input_bytes));
  return text;
}

nlohmann::json parse_json_text(std::string_view text, std::string_view source) {
  return parse_as<nlohmann::json>(text, source);
}

nlohmann::json read_json_input(const std::string& path, std::string_view what) {
  return parse_json_text(read_text_input(path, what), fmt::format("{} '{}'", what, printable(path)));
}

nlohmann::ordered_json read_ordered_json_input(const std::string& path, std::string_view what) {
  return parse_as<nlohmann::ordered_json>(read_text_input(path, what), fmt::format("{} '{}'", what, printable(path)));
}

}  // namespace ringlab::io
