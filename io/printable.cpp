#include "io/printable.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace ringlab::io {

namespace {

// The length of the valid UTF-8 sequence starting at text[at] (1 to 4), or 0 when the bytes
// there are not one (overlong forms, surrogates and code points past U+10FFFF are not valid).
std::size_t utf8_length(std::string_view text, std::size_t at, std::uint32_t& code_point) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[at + i]); };
  const std::uint8_t lead = byte(0);
  std::size_t length = 0;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code_point = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code_point = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3fu);
  }
  const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < smallest[length] || code_point > 0x10ffff || (code_point >= 0xd800 && code_point <= 0xdfff)) return 0;
  return length;
}

}  // namespace

std::string printable(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    std::uint32_t code_point = 0;
    const std::size_t length = utf8_length(text, at, code_point);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<std::uint8_t>(text[at]));
      ++at;
      continue;
    }
    const bool line_break = keep_line_breaks && (code_point == '\n' || code_point == '\t');
    if ((!line_break && code_point < 0x20) || code_point == 0x7f || (code_point >= 0x80 && code_point < 0xa0))
      out += fmt::format("\\u{:04x}", code_point);
    else
      out.append(text.substr(at, length));
    at += length;
  }
  return out;
}

}  // namespace ringlab::io
