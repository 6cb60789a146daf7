#include "cli/checked_option.hpp"

#include <optional>
#include <string>

namespace ringlab::cli {

CLI::Validator number_in(const io::NumberRange& range) {
  // The range's unit is a string_view of a literal: safe to keep in the closure.
  return CLI::Validator(
      [range](std::string& text) { return io::number_text_problem(text, range).value_or(std::string()); },
      io::describe(range));
}

}  // namespace ringlab::cli
