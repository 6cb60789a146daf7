#include "calibration/type_op_reduce.hpp"

#include <fmt/format.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibration/kernel_timing.hpp"
#include "calibration/linear_fit.hpp"
#include "calibration/measurements.hpp"
#include "collectives/reduce.hpp"
#include "collectives/expected_values.hpp"

namespace ringlab::calibration {

namespace {

// Filling a whole operand element by element takes longer than timing it: fill_input's values
// for the first 1 MiB, repeated.
constexpr std::size_t pattern_bytes = std::size_t{1} << 20;

void fill_operand(std::vector<std::byte>& buffer, DataType type, ReduceOp op, int rank) {
  const std::size_t pattern = std::min(buffer.size(), pattern_bytes);
  fill_input(buffer.data(), static_cast<std::int64_t>(pattern / element_size(type)), type, op, rank, 2);
  for (std::size_t at = pattern; at < buffer.size(); at += pattern)
    std::memcpy(buffer.data() + at, buffer.data(), std::min(pattern, buffer.size() - at));
}

// Step 2 on one operand size: `warm_up` untimed calls, then `calls` timed ones; the median.
double median_reduce_seconds(std::byte* out, const std::byte* a, const std::byte* b, std::int64_t bytes, DataType type,
                             ReduceOp op, int warm_up, int calls) {
  const auto count = static_cast<std::size_t>(bytes) / element_size(type);
  std::vector<double> times;
  for (int k = -warm_up; k < calls; ++k) {
    const auto start = std::chrono::steady_clock::now();
    reduce_to(out, a, b, count, type, op);
    if (k >= 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(times);
}

}  // namespace

double kernel_gamma(double seconds, std::int64_t bytes, const std::string& row, const char* regime) {
  const double value = seconds / static_cast<double>(bytes);
  if (!(value > 0) || !std::isfinite(value))
    throw FitError(fmt::format("gamma of the reduce kernel {} {}: {} s for {} B is not a positive time per byte", row,
                               regime, seconds, bytes));
  return value;
}

nlohmann::json kernel_timing_record(const char* what, const KernelTimingSizes& sizes, nlohmann::json samples) {
  return {{"what", what},
          {"in_cache_operand_bytes", sizes.in_cache_bytes},
          {"out_of_cache_operand_bytes", sizes.out_of_cache_bytes},
          {"in_cache_iterations", sizes.in_cache_iterations},
          {"out_of_cache_iterations", sizes.out_of_cache_iterations},
          {"samples", std::move(samples)}};
}

TypeOpReduceMeasurement time_reduce_by_type_op(std::int64_t in_cache_bytes, std::int64_t out_of_cache_bytes) {
  TypeOpReduceMeasurement measurement{in_cache_bytes, out_of_cache_bytes, in_cache_calls, out_of_cache_calls, {}};
  const auto largest = static_cast<std::size_t>(std::max(in_cache_bytes, out_of_cache_bytes));
  std::vector<std::byte> a(largest), b(largest), out(largest);
  for (const DataType type : all_data_types)
    for (const ReduceOp op : all_reduce_ops) {
      fill_operand(a, type, op, 0);
      fill_operand(b, type, op, 1);
      const double in_cache = median_reduce_seconds(out.data(), a.data(), b.data(), in_cache_bytes, type, op, 1, in_cache_calls);
      // No warm-up out of cache: the fill has touched every page, and a warm-up would only evict.
      const double out_of_cache =
          median_reduce_seconds(out.data(), a.data(), b.data(), out_of_cache_bytes, type, op, 0, out_of_cache_calls);
      measurement.samples.push_back({type, op, in_cache, out_of_cache});
    }
  return measurement;
}

std::vector<TypeOpGamma> fit_type_op_gammas(const TypeOpReduceMeasurement& measurement) {
  std::vector<TypeOpGamma> table;
  for (const TypeOpReduceSample& sample : measurement.samples) {
    const std::string row = fmt::format("on {}/{}", name_of(sample.type), name_of(sample.op));
    const auto gamma = [&](double seconds, std::int64_t bytes, const char* regime) {
      return kernel_gamma(seconds, bytes, row, regime);
    };
    table.push_back({std::string(name_of(sample.type)), std::string(name_of(sample.op)),
                     gamma(sample.in_cache_median_seconds, measurement.in_cache_bytes, "in cache"),
                     gamma(sample.out_of_cache_median_seconds, measurement.out_of_cache_bytes, "out of cache")});
  }
  return table;
}

nlohmann::json type_op_reduce_record(const TypeOpReduceMeasurement& measurement) {
  nlohmann::json samples = nlohmann::json::array();
  for (const TypeOpReduceSample& sample : measurement.samples)
    samples.push_back({{"type", name_of(sample.type)},
                       {"op", name_of(sample.op)},
                       {"in_cache_median_us", sample.in_cache_median_seconds * 1e6},
                       {"out_of_cache_median_us", sample.out_of_cache_median_seconds * 1e6}});
  return kernel_timing_record("reduce_to of every type and op on rank 0 alone, out of place, operands in and out of the "
                              "last-level cache, the bench's verification inputs; avg timed as its own op (combined as "
                              "a sum)",
                              {measurement.in_cache_bytes, measurement.out_of_cache_bytes, measurement.in_cache_iterations,
                               measurement.out_of_cache_iterations},
                              std::move(samples));
}

}  // namespace ringlab::calibration
