// Tests for the float16/bfloat16 conversions and the reduction kernels (reduce_into, reduce_to,
// divide_elements), checked element by element against a scalar reference in double / int64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/datatype.hpp"
#include "collectives/reduce.hpp"

namespace ringlab {
namespace {

float float_from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

bool is_float16_nan(std::uint16_t bits) { return (bits & 0x7c00U) == 0x7c00U && (bits & 0x3ffU) != 0; }

// Independent reference for the value of a float16 bit pattern.
double float16_reference(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  const double sign = (bits & 0x8000U) ? -1.0 : 1.0;
  if (exponent == 0x1f) return sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// ---- float16 ----------------------------------------------------------------------------------

TEST(Float16, EveryNonNanPatternRoundTripsExactly) {
  for (std::uint32_t b = 0; b <= 0xffffU; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    if (is_float16_nan(bits)) continue;
    const float value = to_float(float16{bits});
    ASSERT_EQ(static_cast<double>(value), float16_reference(bits)) << "bits 0x" << std::hex << b;
    ASSERT_EQ(std::signbit(value), (bits & 0x8000U) != 0) << "bits 0x" << std::hex << b;
    ASSERT_EQ(to_float16(value).bits, bits) << "bits 0x" << std::hex << b;
  }
}

TEST(Float16, NanStaysNan) {
  for (std::uint32_t b = 0; b <= 0xffffU; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    if (!is_float16_nan(bits)) continue;
    ASSERT_TRUE(std::isnan(to_float(float16{bits}))) << "bits 0x" << std::hex << b;
  }
  EXPECT_TRUE(is_float16_nan(to_float16(std::numeric_limits<float>::quiet_NaN()).bits));
  EXPECT_TRUE(is_float16_nan(to_float16(-std::numeric_limits<float>::quiet_NaN()).bits));
  EXPECT_TRUE(is_float16_nan(to_float16(float_from_bits(0x7f800001U)).bits));  // signalling NaN
  // Quiet, with the payload's upper 9 bits (as F16C and Arm's conversions write it).
  EXPECT_EQ(to_float16(float_from_bits(0x7f800001U)).bits, 0x7e00U);
  EXPECT_EQ(to_float16(float_from_bits(0xffa46000U)).bits, 0xfe00U | (0x246000U >> 13));
  EXPECT_EQ(to_float16(float_from_bits(0x7fffffffU)).bits, 0x7fffU);
  EXPECT_EQ(to_float16(to_float(float16{0x7c01U})).bits, 0x7e01U);  // a signalling float16 NaN comes back quiet
}

// Between every pair of adjacent finite positive float16 values: the exact midpoint rounds to the
// even one, anything just above/below it rounds up/down. Covers subnormals and the normal range.
TEST(Float16, RoundsToNearestEvenBetweenEveryAdjacentPair) {
  for (std::uint16_t lo = 0; lo < 0x7bffU; ++lo) {
    const auto hi = static_cast<std::uint16_t>(lo + 1);
    const float lo_value = to_float(float16{lo});
    const float hi_value = to_float(float16{hi});
    const float mid = (lo_value + hi_value) / 2;  // exact: float has 13 more mantissa bits
    const std::uint16_t even = (lo & 1U) ? hi : lo;
    ASSERT_EQ(to_float16(mid).bits, even) << "lo 0x" << std::hex << lo;
    ASSERT_EQ(to_float16(std::nextafter(mid, 0.0f)).bits, lo) << "lo 0x" << std::hex << lo;
    ASSERT_EQ(to_float16(std::nextafter(mid, 1e9f)).bits, hi) << "lo 0x" << std::hex << lo;
    ASSERT_EQ(to_float16(-mid).bits, even | 0x8000U) << "lo 0x" << std::hex << lo;
  }
}

TEST(Float16, Subnormals) {
  const float smallest = std::ldexp(1.0f, -24);
  EXPECT_EQ(to_float16(smallest).bits, 0x0001U);
  EXPECT_EQ(to_float(float16{0x0001U}), smallest);
  EXPECT_EQ(to_float(float16{0x03ffU}), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(to_float(float16{0x0200U}), std::ldexp(1.0f, -15));
  EXPECT_EQ(to_float(float16{0x8001U}), -smallest);
  EXPECT_EQ(to_float16(std::ldexp(1.0f, -25)).bits, 0x0000U);           // tie -> even (zero)
  EXPECT_EQ(to_float16(std::ldexp(1.5f, -25)).bits, 0x0001U);            // above the tie
  EXPECT_EQ(to_float16(std::ldexp(3.0f, -25)).bits, 0x0002U);            // 1.5 ulp, tie -> even
  EXPECT_EQ(to_float16(std::ldexp(5.0f, -25)).bits, 0x0002U);            // 2.5 ulp, tie -> even
  EXPECT_EQ(to_float16(std::ldexp(1.0f, -26)).bits, 0x0000U);            // underflow to zero
  EXPECT_EQ(to_float16(-std::ldexp(1.0f, -26)).bits, 0x8000U);           // keeps the sign
  EXPECT_EQ(to_float16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)).bits, 0x0400U);  // up to normal
  EXPECT_EQ(to_float16(std::numeric_limits<float>::denorm_min()).bits, 0x0000U);
  EXPECT_EQ(to_float16(-0.0f).bits, 0x8000U);
}

TEST(Float16, OverflowToInfinity) {
  EXPECT_EQ(to_float16(65504.0f).bits, 0x7bffU);  // largest finite
  EXPECT_EQ(to_float16(65519.0f).bits, 0x7bffU);  // below the tie with inf
  EXPECT_EQ(to_float16(65520.0f).bits, 0x7c00U);  // tie -> even, which is inf
  EXPECT_EQ(to_float16(1e10f).bits, 0x7c00U);
  EXPECT_EQ(to_float16(-1e10f).bits, 0xfc00U);
  EXPECT_EQ(to_float16(std::numeric_limits<float>::max()).bits, 0x7c00U);
  EXPECT_EQ(to_float16(std::numeric_limits<float>::infinity()).bits, 0x7c00U);
  EXPECT_EQ(to_float16(-std::numeric_limits<float>::infinity()).bits, 0xfc00U);
  EXPECT_EQ(to_float(float16{0x7c00U}), std::numeric_limits<float>::infinity());
  EXPECT_EQ(to_float(float16{0xfc00U}), -std::numeric_limits<float>::infinity());
}

// ---- bfloat16 ---------------------------------------------------------------------------------

TEST(BFloat16, EveryNonNanPatternRoundTripsExactly) {
  for (std::uint32_t b = 0; b <= 0xffffU; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float value = to_float(bfloat16{bits});
    ASSERT_EQ(bits_of(value), b << 16);
    if (std::isnan(value)) {
      ASSERT_TRUE(std::isnan(to_float(to_bfloat16(value)))) << "bits 0x" << std::hex << b;
    } else {
      ASSERT_EQ(to_bfloat16(value).bits, bits) << "bits 0x" << std::hex << b;
    }
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(to_bfloat16(float_from_bits(0x3f808000U)).bits, 0x3f80U);  // tie, 0x3f80 even
  EXPECT_EQ(to_bfloat16(float_from_bits(0x3f818000U)).bits, 0x3f82U);  // tie, 0x3f82 even
  EXPECT_EQ(to_bfloat16(float_from_bits(0x3f808001U)).bits, 0x3f81U);  // just above the tie
  EXPECT_EQ(to_bfloat16(float_from_bits(0x3f807fffU)).bits, 0x3f80U);  // just below the tie
  EXPECT_EQ(to_bfloat16(float_from_bits(0xbf818000U)).bits, 0xbf82U);  // negative tie
  EXPECT_EQ(to_bfloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80U);   // 1 + half ulp -> 1
  EXPECT_EQ(to_bfloat16(3.14159265f).bits, 0x4049U);
  EXPECT_EQ(to_bfloat16(float_from_bits(0x0000ffffU)).bits, 0x0001U);  // subnormal rounds up
  EXPECT_EQ(to_bfloat16(float_from_bits(0x00008000U)).bits, 0x0000U);  // subnormal tie -> even
  EXPECT_EQ(to_bfloat16(-0.0f).bits, 0x8000U);
}

TEST(BFloat16, OverflowAndNan) {
  EXPECT_EQ(to_bfloat16(float_from_bits(0x7f7f7fffU)).bits, 0x7f7fU);  // stays finite
  EXPECT_EQ(to_bfloat16(float_from_bits(0x7f7f8000U)).bits, 0x7f80U);  // tie -> even = inf
  EXPECT_EQ(to_bfloat16(std::numeric_limits<float>::max()).bits, 0x7f80U);
  EXPECT_EQ(to_bfloat16(-std::numeric_limits<float>::max()).bits, 0xff80U);
  EXPECT_EQ(to_bfloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80U);
  EXPECT_TRUE(std::isnan(to_float(to_bfloat16(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload lives only in the low 16 bits must not collapse to infinity.
  EXPECT_TRUE(std::isnan(to_float(to_bfloat16(float_from_bits(0x7f800001U)))));
  EXPECT_TRUE(std::isnan(to_float(to_bfloat16(float_from_bits(0xff800001U)))));
}

// ---- reduction kernels ------------------------------------------------------------------------

bool is_integer(DataType type) { return type == DataType::int32 || type == DataType::int64; }

// A typed array of count elements stored at element 1 of a buffer with a guard element on either
// side, so the data is not 16-byte aligned and writes out of range are caught.
class Array {
 public:
  static constexpr std::int64_t guard_value = 99;

  Array(DataType type, std::size_t count)
      : type_(type), count_(count), storage_((count + 2) * element_size(type)) {
    set_raw(0, guard_value);
    set_raw(count + 1, guard_value);
  }

  void* data() { return storage_.data() + element_size(type_); }
  std::size_t count() const { return count_; }
  void set(std::size_t i, std::int64_t value) { set_raw(i + 1, value); }
  double get(std::size_t i) const { return get_raw(i + 1); }
  bool guards_intact() const {
    return get_raw(0) == static_cast<double>(guard_value) && get_raw(count_ + 1) == static_cast<double>(guard_value);
  }

 private:
  template <typename T>
  T* typed() { return reinterpret_cast<T*>(storage_.data()); }
  template <typename T>
  const T* typed() const { return reinterpret_cast<const T*>(storage_.data()); }

  void set_raw(std::size_t i, std::int64_t value) {
    const auto f = static_cast<float>(value);
    switch (type_) {
      case DataType::float32: typed<float>()[i] = f; break;
      case DataType::float64: typed<double>()[i] = static_cast<double>(value); break;
      case DataType::float16: typed<float16>()[i] = to_float16(f); break;
      case DataType::bfloat16: typed<bfloat16>()[i] = to_bfloat16(f); break;
      case DataType::int32: typed<std::int32_t>()[i] = static_cast<std::int32_t>(value); break;
      case DataType::int64: typed<std::int64_t>()[i] = value; break;
    }
  }

  double get_raw(std::size_t i) const {
    switch (type_) {
      case DataType::float32: return typed<float>()[i];
      case DataType::float64: return typed<double>()[i];
      case DataType::float16: return to_float(typed<float16>()[i]);
      case DataType::bfloat16: return to_float(typed<bfloat16>()[i]);
      case DataType::int32: return typed<std::int32_t>()[i];
      case DataType::int64: return static_cast<double>(typed<std::int64_t>()[i]);
    }
    return std::nan("");
  }

  DataType type_;
  std::size_t count_;
  std::vector<std::byte> storage_;
};

// Small deterministic integers in [-8, 8]: sums, products, and quotients by 2 or 4 are exact
// in every type, including float16 and bfloat16.
std::int64_t small_value(std::size_t i, std::uint32_t seed) {
  std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761U + seed * 40503U + 12345U;
  x ^= x >> 15;
  x *= 2246822519U;
  x ^= x >> 13;
  return static_cast<std::int64_t>(x % 17U) - 8;
}

// Scalar reference, in int64 for the integer types and double for the floating types.
double reference(DataType type, ReduceOp op, std::int64_t a, std::int64_t b) {
  if (is_integer(type)) {
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: return static_cast<double>(a + b);
      case ReduceOp::prod: return static_cast<double>(a * b);
      case ReduceOp::min: return static_cast<double>(a < b ? a : b);
      case ReduceOp::max: return static_cast<double>(a < b ? b : a);
    }
  }
  const auto x = static_cast<double>(a);
  const auto y = static_cast<double>(b);
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return x + y;
    case ReduceOp::prod: return x * y;
    case ReduceOp::min: return std::min(x, y);
    case ReduceOp::max: return std::max(x, y);
  }
  return std::nan("");
}

double reference_divide(DataType type, double value, int divisor) {
  if (is_integer(type)) return static_cast<double>(static_cast<std::int64_t>(value) / divisor);  // truncates
  return value / divisor;
}

constexpr std::size_t reduce_counts[] = {0, 1, 3, 17, 1000003};

using TypeOp = std::tuple<DataType, ReduceOp>;

class ReduceTest : public ::testing::TestWithParam<TypeOp> {};

TEST_P(ReduceTest, ReduceIntoMatchesReference) {
  const auto [type, op] = GetParam();
  for (const std::size_t count : reduce_counts) {
    Array inout(type, count);
    Array in(type, count);
    for (std::size_t i = 0; i < count; ++i) {
      inout.set(i, small_value(i, 1));
      in.set(i, small_value(i, 2));
    }
    reduce_into(inout.data(), in.data(), count, type, op);
    for (std::size_t i = 0; i < count; ++i) {
      const double expected = reference(type, op, small_value(i, 1), small_value(i, 2));
      ASSERT_EQ(inout.get(i), expected) << "count " << count << " element " << i;
      ASSERT_EQ(in.get(i), static_cast<double>(small_value(i, 2))) << "input modified, element " << i;
    }
    ASSERT_TRUE(inout.guards_intact()) << "count " << count;
    ASSERT_TRUE(in.guards_intact()) << "count " << count;
  }
}

TEST_P(ReduceTest, ReduceToMatchesReference) {
  const auto [type, op] = GetParam();
  for (const std::size_t count : reduce_counts) {
    Array out(type, count);
    Array a(type, count);
    Array b(type, count);
    for (std::size_t i = 0; i < count; ++i) {
      a.set(i, small_value(i, 3));
      b.set(i, small_value(i, 4));
      out.set(i, 77);
    }
    reduce_to(out.data(), a.data(), b.data(), count, type, op);
    for (std::size_t i = 0; i < count; ++i) {
      const double expected = reference(type, op, small_value(i, 3), small_value(i, 4));
      ASSERT_EQ(out.get(i), expected) << "count " << count << " element " << i;
      ASSERT_EQ(a.get(i), static_cast<double>(small_value(i, 3))) << "input a modified, element " << i;
      ASSERT_EQ(b.get(i), static_cast<double>(small_value(i, 4))) << "input b modified, element " << i;
    }
    ASSERT_TRUE(out.guards_intact() && a.guards_intact() && b.guards_intact()) << "count " << count;
  }
}

// reduce_into then divide_elements, as an all-reduce over ranks would finish (exercises avg).
TEST_P(ReduceTest, ReduceThenDivideMatchesReference) {
  const auto [type, op] = GetParam();
  for (const int divisor : {1, 2, 4}) {
    for (const std::size_t count : reduce_counts) {
      Array inout(type, count);
      Array in(type, count);
      for (std::size_t i = 0; i < count; ++i) {
        inout.set(i, small_value(i, 5));
        in.set(i, small_value(i, 6));
      }
      reduce_into(inout.data(), in.data(), count, type, op);
      divide_elements(inout.data(), count, type, divisor);
      for (std::size_t i = 0; i < count; ++i) {
        const double combined = reference(type, op, small_value(i, 5), small_value(i, 6));
        ASSERT_EQ(inout.get(i), reference_divide(type, combined, divisor))
            << "divisor " << divisor << " count " << count << " element " << i;
      }
      ASSERT_TRUE(inout.guards_intact()) << "count " << count;
    }
  }
}

std::string type_op_name(const ::testing::TestParamInfo<TypeOp>& info) {
  return std::string(name_of(std::get<0>(info.param))) + "_" + std::string(name_of(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllTypesAndOps, ReduceTest,
                         ::testing::Combine(::testing::ValuesIn(all_data_types), ::testing::ValuesIn(all_reduce_ops)),
                         type_op_name);

// divide_elements on its own, with divisors that do not divide evenly: integer types truncate
// toward zero; floating types get the correctly rounded quotient (values are multiples of the
// divisor there, so the quotient is exact).
class DivideTest : public ::testing::TestWithParam<DataType> {};

TEST_P(DivideTest, DivideElementsMatchesReference) {
  const DataType type = GetParam();
  for (const int divisor : {1, 2, 3, 4, 7}) {
    for (const std::size_t count : reduce_counts) {
      Array data(type, count);
      auto value = [&](std::size_t i) {
        return is_integer(type) ? small_value(i, 7) * 5 : small_value(i, 7) * divisor;
      };
      for (std::size_t i = 0; i < count; ++i) data.set(i, value(i));
      divide_elements(data.data(), count, type, divisor);
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(data.get(i), reference_divide(type, static_cast<double>(value(i)), divisor))
            << "divisor " << divisor << " count " << count << " element " << i;
      ASSERT_TRUE(data.guards_intact()) << "count " << count;
    }
  }
}

TEST(Divide, FloatingDivisionIsCorrectlyRounded) {
  for (const DataType type : {DataType::float32, DataType::float64, DataType::float16, DataType::bfloat16}) {
    Array data(type, 3);
    data.set(0, 1);
    data.set(1, -2);
    data.set(2, 10);
    divide_elements(data.data(), 3, type, 3);
    const double thirds[] = {1.0 / 3, -2.0 / 3, 10.0 / 3};
    for (std::size_t i = 0; i < 3; ++i) {
      double expected = thirds[i];
      if (type == DataType::float32) expected = static_cast<float>(thirds[i]);
      if (type == DataType::float16) expected = to_float(to_float16(static_cast<float>(thirds[i])));
      if (type == DataType::bfloat16) expected = to_float(to_bfloat16(static_cast<float>(thirds[i])));
      EXPECT_EQ(data.get(i), expected) << name_of(type) << " element " << i;
    }
  }
}

std::string type_name(const ::testing::TestParamInfo<DataType>& info) { return std::string(name_of(info.param)); }

INSTANTIATE_TEST_SUITE_P(AllTypes, DivideTest, ::testing::ValuesIn(all_data_types), type_name);

// ---- integer overflow wraps (two's complement), without undefined behaviour ------------------

TEST(ReduceOverflow, Int32SumAndProdWrap) {
  std::int32_t inout[] = {std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min(),
                          65536};
  const std::int32_t in[] = {1, -1, 65536};
  reduce_into(inout, in, 2, DataType::int32, ReduceOp::sum);
  EXPECT_EQ(inout[0], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(inout[1], std::numeric_limits<std::int32_t>::max());
  std::int32_t out[3] = {};
  reduce_to(out, in, inout, 3, DataType::int32, ReduceOp::prod);
  EXPECT_EQ(out[0], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(out[1], -std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(out[2], 0);  // 2^32 wraps to 0
}

TEST(ReduceOverflow, Int64SumAndProdWrap) {
  std::int64_t inout[] = {std::numeric_limits<std::int64_t>::max(), std::int64_t{1} << 32};
  const std::int64_t in[] = {1, std::int64_t{1} << 32};
  reduce_into(inout, in, 1, DataType::int64, ReduceOp::sum);
  EXPECT_EQ(inout[0], std::numeric_limits<std::int64_t>::min());
  reduce_into(inout + 1, in + 1, 1, DataType::int64, ReduceOp::prod);
  EXPECT_EQ(inout[1], 0);  // 2^64 wraps to 0
}

}  // namespace
}  // namespace ringlab
