#include "io/checked_number.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/printable.hpp"

namespace ringlab::io {

std::string describe(const NumberRange& range) {
  return fmt::format("{}{:g}, {:g}{}{}{}", range.min_open ? '(' : '[', range.min, range.max, range.max_open ? ')' : ']',
                     range.unit.empty() ? "" : " ", range.unit);
}

std::optional<std::string> number_problem(double value, const NumberRange& range) {
  if (!std::isfinite(value))
    return fmt::format("{} is not a finite number; expected a number in {}", value, describe(range));
  const bool above_min = range.min_open ? value > range.min : value >= range.min;
  const bool below_max = range.max_open ? value < range.max : value <= range.max;
  if (above_min && below_max) return std::nullopt;
  return fmt::format("{} is outside {}", value, describe(range));
}

double check_number(double value, std::string_view where, const NumberRange& range) {
  if (const std::optional<std::string> problem = number_problem(value, range))
    throw std::invalid_argument(fmt::format("{}: {}", where, *problem));
  return value;
}

namespace {

// The whole text as a decimal or exponent number; nothing for anything else (strtod alone would
// take "nan", "inf", hexadecimal and leading blanks).
std::optional<double> decimal_number(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  if (errno == ERANGE && std::isinf(value)) return std::nullopt;  // 1e999
  return value;
}

}  // namespace

std::optional<std::string> number_text_problem(std::string_view text, const NumberRange& range) {
  const std::optional<double> value = decimal_number(text);
  if (!value)
    return fmt::format("'{}' is not a finite decimal number; expected a number in {}", printable(text), describe(range));
  return number_problem(*value, range);
}

double parse_checked_number(std::string_view text, std::string_view where, const NumberRange& range) {
  if (const std::optional<std::string> problem = number_text_problem(text, range))
    throw std::invalid_argument(fmt::format("{}: {}", where, *problem));
  return *decimal_number(text);
}

double check_json_number(const nlohmann::json& value, std::string_view where, const NumberRange& range) {
  if (!value.is_number())
    throw std::invalid_argument(
        fmt::format("{}: is {}; expected a number in {}", where, printable(value.dump()), describe(range)));
  return check_number(value.get<double>(), where, range);
}

std::int64_t check_json_integer(const nlohmann::json& value, std::string_view where, std::int64_t min, std::int64_t max,
                                std::string_view unit) {
  const std::string expected = fmt::format("an integer in [{}, {}]{}{}", min, max, unit.empty() ? "" : " ", unit);
  if (!value.is_number_integer())
    throw std::invalid_argument(fmt::format("{}: is {}; expected {}", where, printable(value.dump()), expected));
  bool inside = false;
  if (value.is_number_unsigned()) {  // nlohmann reads every integer >= 0 as unsigned
    const std::uint64_t number = value.get<std::uint64_t>();
    inside = max >= 0 && number <= static_cast<std::uint64_t>(max) && (min <= 0 || number >= static_cast<std::uint64_t>(min));
  } else {
    const std::int64_t number = value.get<std::int64_t>();
    inside = number >= min && number <= max;
  }
  if (!inside)
    throw std::invalid_argument(fmt::format("{}: {} is outside [{}, {}]{}{}", where, value.dump(), min, max,
                                            unit.empty() ? "" : " ", unit));
  return value.get<std::int64_t>();
}

}  // namespace ringlab::io
