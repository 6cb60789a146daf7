// What the two reduce-kernel tables of a calibration (type_op_reduce.hpp, form_reduce.hpp) share:
// operand bytes and timed calls per cache regime, their record's header, and a median time made a
// gamma. Internal to calibration/.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ringlab::calibration {

struct KernelTimingSizes {
  std::int64_t in_cache_bytes = 0;  // operand bytes
  std::int64_t out_of_cache_bytes = 0;
  int in_cache_iterations = 0;  // timed calls per row
  int out_of_cache_iterations = 0;
};

// Median seconds / operand bytes; throws FitError "gamma of the reduce kernel <row> <regime>: ..."
// when it is not a positive finite time per byte.
double kernel_gamma(double seconds, std::int64_t bytes, const std::string& row, const char* regime);

// The record object of a table: `what`, the sizes, and the samples.
nlohmann::json kernel_timing_record(const char* what, const KernelTimingSizes& sizes, nlohmann::json samples);

}  // namespace ringlab::calibration
