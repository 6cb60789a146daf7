// The reduce kernel on every DataType x ReduceOp, in cache and out of cache: what `ringlab
// calibrate` writes as the topology's gamma_by_type_op (docs/calibration.md, "What is measured",
// step 3b). Steps:
//   1. operands of in-cache bytes (the smallest reduce size, 64 KiB: 192 KiB touched) and of
//      out-of-cache bytes (the first out-of-cache reduce size s, >= gamma_min_operand_bytes),
//      filled for each (type, op) with the bench's verification inputs of ranks 0 and 1
//      (expected_values.hpp: exact small integers, varied element by element; the first 1 MiB's
//      values repeated, so filling costs less than timing);
//   2. reduce_to, out of place as the float32/sum measurement (two reads, one write): in cache
//      one warm-up and in_cache_calls timed calls, out of cache out_of_cache_calls (each a pass
//      over operands the cache cannot hold), median; avg is its own entry, timed with
//      ReduceOp::avg (the kernel combines it as a sum);
//   3. gamma of each pair and cache regime: median time / operand bytes (fit_type_op_gammas).
// Cheap on purpose, a few seconds for the 30 pairs (float16's kernel, the slowest, took about
// 0.1 s a pass over 64 MiB operands); the float32/sum sweep of measure_reduce stays the
// careful one, and the models use only the ratios of this table (type_op_gamma.hpp).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "collectives/datatype.hpp"
#include "topology/topology.hpp"

namespace ringlab::calibration {

inline constexpr int in_cache_calls = 21;
inline constexpr int out_of_cache_calls = 3;

struct TypeOpReduceSample {
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  double in_cache_median_seconds = 0;
  double out_of_cache_median_seconds = 0;
};

struct TypeOpReduceMeasurement {
  std::int64_t in_cache_bytes = 0;  // operand bytes
  std::int64_t out_of_cache_bytes = 0;
  int in_cache_iterations = 0;  // timed calls per pair
  int out_of_cache_iterations = 0;
  std::vector<TypeOpReduceSample> samples;  // empty: not measured (records before 2026-12-06 22:00 UTC)
};

// Steps 1-2 on this thread, every DataType x ReduceOp in all_data_types x all_reduce_ops order.
TypeOpReduceMeasurement time_reduce_by_type_op(std::int64_t in_cache_bytes, std::int64_t out_of_cache_bytes);

// Step 3: one row per sample, one process on a core of its own. Throws FitError naming the pair
// when a median time is not positive and finite.
std::vector<TypeOpGamma> fit_type_op_gammas(const TypeOpReduceMeasurement& measurement);

// The record's "reduce_by_type_op" object (docs/calibration.md, "The calibration record").
nlohmann::json type_op_reduce_record(const TypeOpReduceMeasurement& measurement);

}  // namespace ringlab::calibration
