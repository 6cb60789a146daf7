// The float32/sum reduce kernel in both operand forms, in cache and out of cache, alone and with
// k = min(N, cores) ranks running it at once: what `ringlab calibrate` writes as the topology's
// gamma_by_form (docs/calibration.md, "What is measured", step 5). Steps:
//   1. for ranks_reducing in {1, k} and form in {out of place (reduce_to, c = a + b), in place
//      (reduce_into, a = a + b)}: ranks 0..ranks_reducing-1 leave a barrier together (the others
//      sleep) and each times the kernel on operands of in_cache_bytes (the smallest reduce size,
//      64 KiB) in_cache_calls times after one warm-up, then on operands of out_of_cache_bytes (the
//      first out-of-cache reduce size s) out_of_cache_calls times, median per rank;
//   2. per row, the slowest rank's medians;
//   3. gamma of each row and cache regime: median time / operand bytes (fit_form_gammas).
// The (out of place, 1 rank) row is the kernel the topology's gamma is measured on, timed again
// beside the others so that the models use ratios of like to like (type_op_gamma.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "collectives/placement.hpp"
#include "topology/topology.hpp"

namespace ringlab::calibration {

inline constexpr int form_in_cache_calls = 1000;  // about 10 ms at 64 KiB: long enough to overlap
inline constexpr int form_out_of_cache_calls = 5;

struct FormReduceSample {
  Placement form = Placement::out_of_place;
  int ranks_reducing = 1;
  double in_cache_median_seconds = 0;      // the slowest rank's
  double out_of_cache_median_seconds = 0;  // the slowest rank's
};

struct FormReduceMeasurement {
  std::int64_t in_cache_bytes = 0;  // operand bytes
  std::int64_t out_of_cache_bytes = 0;
  int in_cache_iterations = 0;  // timed calls per rank and row
  int out_of_cache_iterations = 0;
  std::vector<FormReduceSample> samples;  // empty: not measured (records before 2026-12-07 15:00 UTC)
};

// Step 1 on this rank for one row: the in-cache and out-of-cache medians of the kernel.
std::vector<double> time_reduce_form(Placement form, std::int64_t in_cache_bytes, std::int64_t out_of_cache_bytes);

// Step 3: one row per sample. Throws FitError naming the row when a median time is not positive
// and finite.
std::vector<FormGamma> fit_form_gammas(const FormReduceMeasurement& measurement);

// The record's "reduce_by_form" object (docs/calibration.md, "The calibration record").
nlohmann::json form_reduce_record(const FormReduceMeasurement& measurement);

}  // namespace ringlab::calibration
