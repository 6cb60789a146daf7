// Fuzz target: the checked-number parser every floating-point option and RINGLAB_FAULT's
// seconds= go through (io::parse_checked_number / io::number_text_problem), and the escaping of
// echoed text (io::printable). Input: first byte picks a range (closed, open, tiny, huge), the
// rest is the option's text. std::invalid_argument is the answer to bad text. An accepted value
// must be finite and within the range, and agree with number_text_problem; an error message must
// hold no control character (it quotes the text).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/checked_number.hpp"
#include "io/printable.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

bool has_control_character(std::string_view text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

const ringlab::io::NumberRange ranges[] = {
    {0, 3600, "s", true},           // --min-time
    {0, 1, "", false, true},        // --momentum
    {1e3, 1e15, "B/s"},             // a bandwidth
    {0, 1e-3, "s/B"},               // gamma
    {-1e308, 1e308, ""},            // nearly everything finite
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ringlab::io::NumberRange& range = ranges[data[0] % (sizeof(ranges) / sizeof(ranges[0]))];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  require(!has_control_character(ringlab::io::printable(text)));
  const bool refused = ringlab::io::number_text_problem(text, range).has_value();
  try {
    const double value = ringlab::io::parse_checked_number(text, "--option", range);
    require(!refused && std::isfinite(value));
    require(range.min_open ? value > range.min : value >= range.min);
    require(range.max_open ? value < range.max : value <= range.max);
  } catch (const std::invalid_argument& error) {
    require(refused && !has_control_character(error.what()));
  }
  return 0;
}
