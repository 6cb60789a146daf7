// Element types and reduction operators that every collective and backend understands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

// The half-precision conversions below are also compiled into the CUDA reduce kernels
// (collectives/cuda/device_reduce.cu), so device results round exactly as host ones do.
#if defined(__CUDACC__)
#define RINGLAB_HOST_DEVICE __host__ __device__
#else
#define RINGLAB_HOST_DEVICE
#endif

namespace ringlab {

enum class DataType { float32, float64, float16, bfloat16, int32, int64 };
enum class ReduceOp { sum, prod, min, max, avg };

// IEEE 754 binary16, stored as bits; arithmetic goes through float.
struct float16 {
  std::uint16_t bits = 0;
};
// bfloat16 (the upper half of a float32), stored as bits; arithmetic goes through float.
struct bfloat16 {
  std::uint16_t bits = 0;
};

RINGLAB_HOST_DEVICE inline float to_float(bfloat16 value) {
  const std::uint32_t wide = static_cast<std::uint32_t>(value.bits) << 16;
  float result;
  std::memcpy(&result, &wide, sizeof result);
  return result;
}

// Round to nearest, ties to even; NaN stays NaN.
RINGLAB_HOST_DEVICE inline bfloat16 to_bfloat16(float value) {
  std::uint32_t wide;
  std::memcpy(&wide, &value, sizeof wide);
  if ((wide & 0x7fffffffU) > 0x7f800000U) return bfloat16{static_cast<std::uint16_t>((wide >> 16) | 0x40U)};
  const std::uint32_t rounding = 0x7fffU + ((wide >> 16) & 1U);
  return bfloat16{static_cast<std::uint16_t>((wide + rounding) >> 16)};
}

// IEEE binary16 <-> float, round to nearest even; inline so reduce loops can use them.
RINGLAB_HOST_DEVICE inline float to_float(float16 value) {
  const std::uint32_t sign = static_cast<std::uint32_t>(value.bits & 0x8000U) << 16;
  const std::uint32_t exponent = (value.bits >> 10) & 0x1fU;
  std::uint32_t mantissa = value.bits & 0x3ffU;
  std::uint32_t wide;
  if (exponent == 0x1fU) {
    wide = sign | 0x7f800000U | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    wide = sign | ((exponent + 112U) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    wide = sign;  // signed zero
  } else {
    // Subnormal: normalise the mantissa.
    std::uint32_t shifted_exponent = 113;
    while ((mantissa & 0x400U) == 0) {
      mantissa <<= 1;
      --shifted_exponent;
    }
    wide = sign | (shifted_exponent << 23) | ((mantissa & 0x3ffU) << 13);
  }
  float result;
  std::memcpy(&result, &wide, sizeof result);
  return result;
}

RINGLAB_HOST_DEVICE inline float16 to_float16(float value) {
  std::uint32_t wide;
  std::memcpy(&wide, &value, sizeof wide);
  const auto sign = static_cast<std::uint16_t>((wide >> 16) & 0x8000U);
  const std::uint32_t magnitude = wide & 0x7fffffffU;
  // NaN: quiet, with the payload's upper 9 bits, as x86's F16C and Arm's conversions keep them.
  if (magnitude > 0x7f800000U) return float16{static_cast<std::uint16_t>(sign | 0x7e00U | ((magnitude >> 13) & 0x1ffU))};
  if (magnitude >= 0x477ff000U) return float16{static_cast<std::uint16_t>(sign | 0x7c00U)};  // overflow -> inf
  if (magnitude < 0x38800000U) {
    // Result is subnormal or zero: scale into the subnormal grid with round-to-nearest-even.
    if (magnitude < 0x33000000U) return float16{sign};  // below half the smallest subnormal
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffU) | 0x800000U;
    const std::uint32_t shift = 126U - exponent;  // 14..24
    const std::uint32_t half_bits = mantissa >> shift;
    const std::uint32_t remainder = mantissa & ((1U << shift) - 1U);
    const std::uint32_t halfway = 1U << (shift - 1U);
    const std::uint32_t rounded =
        half_bits + ((remainder > halfway || (remainder == halfway && (half_bits & 1U))) ? 1U : 0U);
    return float16{static_cast<std::uint16_t>(sign | rounded)};
  }
  // Normal: rebias the exponent, round the mantissa to 10 bits (carry may bump the exponent).
  const std::uint32_t rebiased = magnitude - (112U << 23);
  const std::uint32_t rounded = rebiased + 0xfffU + ((rebiased >> 13) & 1U);
  return float16{static_cast<std::uint16_t>(sign | (rounded >> 13))};
}


constexpr std::size_t element_size(DataType type) {
  switch (type) {
    case DataType::float32: return 4;
    case DataType::float64: return 8;
    case DataType::float16: return 2;
    case DataType::bfloat16: return 2;
    case DataType::int32: return 4;
    case DataType::int64: return 8;
  }
  return 0;
}

inline constexpr DataType all_data_types[] = {DataType::float32, DataType::float64, DataType::float16,
                                              DataType::bfloat16, DataType::int32,   DataType::int64};
inline constexpr ReduceOp all_reduce_ops[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max,
                                              ReduceOp::avg};

std::string_view name_of(DataType type);
std::string_view name_of(ReduceOp op);
// Parse a name (nccl-tests spellings accepted: float, double, half, bf16, int, ...).
// Throws std::invalid_argument listing the valid names.
DataType parse_data_type(std::string_view name);
ReduceOp parse_reduce_op(std::string_view name);

}  // namespace ringlab
