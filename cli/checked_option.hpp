// A CLI11 check for a floating-point option: the text must be a finite decimal number within
// `range` (io/checked_number.hpp), so "nan", "inf" and out-of-range values are refused while the
// command line is read, CLI11 naming the flag: "--min-time: 'nan' is not a finite decimal number;
// expected a number in (0, 3600] s".
#pragma once

#include <CLI/CLI.hpp>

#include "io/checked_number.hpp"

namespace ringlab::cli {

CLI::Validator number_in(const io::NumberRange& range);

}  // namespace ringlab::cli
