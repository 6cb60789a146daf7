// One checker for every floating-point value that comes from outside (command-line options,
// environment variables, numbers in JSON files): the value must be finite and within a
// documented range, and the error names where it came from, the value and the range.
//   check_number(1e-300, "t.json: links[3].bandwidth", {1e3, 1e15, "B/s"}) throws
//   "t.json: links[3].bandwidth: 1e-300 is outside [1000, 1e+15] B/s".
// Integers read from JSON are checked the same way before they are narrowed
// (check_json_integer), so 2^32 + 2 is refused instead of becoming 2.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ringlab::io {

// [min, max], or (min, max] etc. when an end is open; `unit` is printed after the range.
struct NumberRange {
  constexpr NumberRange(double lowest, double highest, std::string_view unit_name = "", bool lowest_open = false,
                        bool highest_open = false)
      : min(lowest), max(highest), unit(unit_name), min_open(lowest_open), max_open(highest_open) {}
  double min;
  double max;
  std::string_view unit;
  bool min_open;
  bool max_open;
};

// "(0, 3600] s": the range as messages print it.
std::string describe(const NumberRange& range);

// Why `value` is not acceptable ("nan is not a finite number; expected ..." or "1e-300 is outside
// [1000, 1e+15] B/s"), or nothing when it is.
std::optional<std::string> number_problem(double value, const NumberRange& range);

// `value` when finite and within `range`; otherwise throws std::invalid_argument "WHERE: <problem>".
double check_number(double value, std::string_view where, const NumberRange& range);

// Command-line or environment text: the whole of `text` must be a decimal number (no "nan",
// "inf", trailing junk or empty text), then checked as above. Throws std::invalid_argument
// "WHERE: ..." naming the text as given.
std::optional<std::string> number_text_problem(std::string_view text, const NumberRange& range);
double parse_checked_number(std::string_view text, std::string_view where, const NumberRange& range);

// A JSON number (integer or not) checked as above; a non-number is refused with its dump.
double check_json_number(const nlohmann::json& value, std::string_view where, const NumberRange& range);

// A JSON integer within [min, max], checked before narrowing (an unsigned above 2^63 and a float
// such as 2.5 are refused, not wrapped or truncated). Throws std::invalid_argument "WHERE: ...".
std::int64_t check_json_integer(const nlohmann::json& value, std::string_view where, std::int64_t min,
                                std::int64_t max, std::string_view unit = "");

}  // namespace ringlab::io
