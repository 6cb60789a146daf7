#include "calibration/form_reduce.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibration/kernel_timing.hpp"
#include "calibration/linear_fit.hpp"
#include "collectives/reduce.hpp"

namespace ringlab::calibration {

namespace {

// `calls` timed calls of the form's kernel on `bytes` of each operand after `warm_up` untimed ones; the median.
double median_form_seconds(Placement form, float* out, float* a, const float* b, std::int64_t bytes, int warm_up,
                           int calls) {
  const auto count = static_cast<std::size_t>(bytes) / sizeof(float);
  std::vector<double> times;
  for (int k = -warm_up; k < calls; ++k) {
    const auto start = std::chrono::steady_clock::now();
    if (form == Placement::in_place)
      reduce_into(a, b, count, DataType::float32, ReduceOp::sum);
    else
      reduce_to(out, a, b, count, DataType::float32, ReduceOp::sum);
    if (k >= 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(times);
}

}  // namespace

std::vector<double> time_reduce_form(Placement form, std::int64_t in_cache_bytes, std::int64_t out_of_cache_bytes) {
  const auto floats = static_cast<std::size_t>(std::max(in_cache_bytes, out_of_cache_bytes)) / sizeof(float);
  // In place, a grows by 2 a call: 1 + 2 x 1006 stays exact in float32.
  std::vector<float> a(floats, 1.0f), b(floats, 2.0f), out(floats, 0.0f);
  const double in_cache = median_form_seconds(form, out.data(), a.data(), b.data(), in_cache_bytes, 1, form_in_cache_calls);
  // No warm-up out of cache: the fill has touched every page, and a warm-up would only evict.
  const double out_of_cache =
      median_form_seconds(form, out.data(), a.data(), b.data(), out_of_cache_bytes, 0, form_out_of_cache_calls);
  return {in_cache, out_of_cache};
}

std::vector<FormGamma> fit_form_gammas(const FormReduceMeasurement& measurement) {
  std::vector<FormGamma> table;
  for (const FormReduceSample& sample : measurement.samples) {
    const std::string row = fmt::format("{} with {} ranks reducing,", name_of(sample.form), sample.ranks_reducing);
    const auto gamma = [&](double seconds, std::int64_t bytes, const char* regime) {
      return kernel_gamma(seconds, bytes, row, regime);
    };
    table.push_back({std::string(name_of(sample.form)), sample.ranks_reducing,
                     gamma(sample.in_cache_median_seconds, measurement.in_cache_bytes, "in cache"),
                     gamma(sample.out_of_cache_median_seconds, measurement.out_of_cache_bytes, "out of cache")});
  }
  return table;
}

nlohmann::json form_reduce_record(const FormReduceMeasurement& measurement) {
  nlohmann::json samples = nlohmann::json::array();
  for (const FormReduceSample& sample : measurement.samples)
    samples.push_back({{"form", name_of(sample.form)},
                       {"ranks_reducing", sample.ranks_reducing},
                       {"in_cache_median_us", sample.in_cache_median_seconds * 1e6},
                       {"out_of_cache_median_us", sample.out_of_cache_median_seconds * 1e6}});
  return kernel_timing_record("float32 sum reduce_to (out of place) and reduce_into (in place) on ranks "
                              "0..ranks_reducing-1 at once, operands in and out of the last-level cache; the slowest "
                              "rank's median",
                              {measurement.in_cache_bytes, measurement.out_of_cache_bytes, measurement.in_cache_iterations,
                               measurement.out_of_cache_iterations},
                              std::move(samples));
}

}  // namespace ringlab::calibration
