// The SIMD reduce kernels on every instruction set this CPU can run (Highway targets forced one
// at a time), checked bit for bit against the scalar reference (reduce_reference.hpp) on random
// bit patterns (NaN, infinities, subnormals, signed zeros included), odd lengths and pointers
// off the vector alignment. NaN results only have to be NaN: which operand's payload survives an
// operation with two NaNs is the hardware's choice in the reference too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/datatype.hpp"
#include "collectives/reduce.hpp"
#include "collectives/reduce_reference.hpp"

namespace ringlab {
namespace {

constexpr std::size_t target_counts[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 127, 129, 1000, 4099};
constexpr std::size_t element_offsets[] = {0, 1, 3};  // from a 64-byte aligned start

// Whether the element's bits encode a NaN of its type.
bool is_nan(DataType type, const std::byte* element) {
  switch (type) {
    case DataType::float32: {
      float value;
      std::memcpy(&value, element, sizeof value);
      return std::isnan(value);
    }
    case DataType::float64: {
      double value;
      std::memcpy(&value, element, sizeof value);
      return std::isnan(value);
    }
    case DataType::float16: {
      std::uint16_t bits;
      std::memcpy(&bits, element, sizeof bits);
      return (bits & 0x7c00U) == 0x7c00U && (bits & 0x3ffU) != 0;
    }
    case DataType::bfloat16: {
      std::uint16_t bits;
      std::memcpy(&bits, element, sizeof bits);
      return (bits & 0x7f80U) == 0x7f80U && (bits & 0x7fU) != 0;
    }
    case DataType::int32:
    case DataType::int64: return false;
  }
  return false;
}

// A buffer of random bytes from a 64-byte aligned start: `offset` elements, then the count
// elements the kernels see, then a tail of 8 elements that must not change.
class Buffer {
 public:
  Buffer(DataType type, std::size_t offset, std::size_t count, std::mt19937_64& random)
      : size_(element_size(type)), offset_(offset), storage_((offset + count + 8) * size_ + 64) {
    begin_ = static_cast<std::size_t>(-reinterpret_cast<std::uintptr_t>(storage_.data()) % 64);
    for (std::size_t b = 0; b < region_size(); ++b) region()[b] = static_cast<std::byte>(random());
  }
  void* data() { return region() + offset_ * size_; }
  std::byte* element(std::size_t i) { return static_cast<std::byte*>(data()) + i * size_; }
  std::byte* region() { return storage_.data() + begin_; }
  std::size_t region_size() const { return storage_.size() - 64; }

 private:
  std::size_t size_;
  std::size_t offset_;
  std::vector<std::byte> storage_;
  std::size_t begin_ = 0;
};

// Compares every element bit for bit (NaN against NaN) and the bytes around the range exactly.
void expect_same(DataType type, Buffer& simd, Buffer& reference, std::size_t count, const std::string& where) {
  const std::size_t size = element_size(type);
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* got = simd.element(i);
    const std::byte* want = reference.element(i);
    if (is_nan(type, want)) {
      ASSERT_TRUE(is_nan(type, got)) << where << ": element " << i << " should be NaN";
    } else {
      ASSERT_EQ(std::memcmp(got, want, size), 0) << where << ": element " << i << " differs";
    }
  }
  // Outside [0, count): untouched, so equal to the reference buffer made from the same seed.
  const std::size_t first = static_cast<std::size_t>(simd.element(0) - simd.region());
  const std::size_t last = first + count * size;
  for (std::size_t b = 0; b < simd.region_size(); ++b) {
    if (b >= first && b < last) continue;
    ASSERT_EQ(simd.region()[b], reference.region()[b]) << where << ": byte " << b << " outside the range changed";
  }
}

using TargetTypeOp = std::tuple<DataType, ReduceOp>;

class ReduceTargets : public ::testing::TestWithParam<TargetTypeOp> {};

TEST_P(ReduceTargets, EveryTargetMatchesTheReferenceBitForBit) {
  const DataType type = std::get<0>(GetParam());
  const ReduceOp op = std::get<1>(GetParam());
  const auto targets = reduce_kernel_targets();
  ASSERT_FALSE(targets.empty());
  for (const ReduceKernelTarget& target : targets) {
    const ForcedReduceTarget forced(target);
    ASSERT_EQ(reduce_kernel_target(), target.name);
    for (const std::size_t offset : element_offsets) {
      for (const std::size_t count : target_counts) {
        const std::string where = target.name + " offset " + std::to_string(offset) + " count " + std::to_string(count);
        const std::uint64_t seed = count * 131 + offset * 7 + static_cast<std::uint64_t>(type) * 17 + static_cast<std::uint64_t>(op);
        auto make = [&](std::uint64_t stream) {
          std::mt19937_64 random(seed * 4 + stream);
          return Buffer(type, offset, count, random);
        };
        {  // reduce_into
          Buffer got = make(0), want = make(0), in = make(1);
          reduce_into(got.data(), in.data(), count, type, op);
          reference::reduce_into(want.data(), in.data(), count, type, op);
          expect_same(type, got, want, count, where + " reduce_into");
        }
        {  // reduce_to, the output at its own offset
          Buffer got = make(2), want = make(2), a = make(0), b = make(1);
          reduce_to(got.data(), a.data(), b.data(), count, type, op);
          reference::reduce_to(want.data(), a.data(), b.data(), count, type, op);
          expect_same(type, got, want, count, where + " reduce_to");
        }
      }
    }
  }
}

std::string target_type_op_name(const ::testing::TestParamInfo<TargetTypeOp>& info) {
  return std::string(name_of(std::get<0>(info.param))) + "_" + std::string(name_of(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllTypesAndOps, ReduceTargets,
                         ::testing::Combine(::testing::ValuesIn(all_data_types), ::testing::ValuesIn(all_reduce_ops)),
                         target_type_op_name);

TEST(ReduceTargetsDivide, EveryTargetMatchesTheReferenceBitForBit) {
  for (const ReduceKernelTarget& target : reduce_kernel_targets()) {
    const ForcedReduceTarget forced(target);
    for (const DataType type : all_data_types) {
      for (const int divisor : {1, 2, 3, 7, 10, 1000}) {
        for (const std::size_t count : target_counts) {
          const std::string where = target.name + " " + std::string(name_of(type)) + " divisor " +
                                    std::to_string(divisor) + " count " + std::to_string(count);
          std::mt19937_64 random_got(count + divisor), random_want(count + divisor);
          Buffer got(type, 1, count, random_got), want(type, 1, count, random_want);
          divide_elements(got.data(), count, type, divisor);
          reference::divide_elements(want.data(), count, type, divisor);
          expect_same(type, got, want, count, where);
        }
      }
    }
  }
}

// Every 16-bit pattern + -0, max'ed with -inf and min'ed with +inf gives the pattern back (a NaN as
// the reference makes it quiet), so widening and narrowing are exact on every target; and every
// pattern's halves and thirds round as the reference rounds. float16 and bfloat16, NaN included,
// bit for bit.
void expect_every_pattern_as_reference(DataType type) {
  const bool half = type == DataType::float16;
  const std::uint16_t minus_zero = 0x8000U, minus_inf = half ? 0xfc00U : 0xff80U, plus_inf = half ? 0x7c00U : 0x7f80U;
  std::vector<std::uint16_t> patterns(65536);
  for (std::uint32_t b = 0; b < 65536; ++b) patterns[b] = static_cast<std::uint16_t>(b);
  const std::pair<ReduceOp, std::uint16_t> neutral[] = {
      {ReduceOp::sum, minus_zero}, {ReduceOp::max, minus_inf}, {ReduceOp::min, plus_inf}};
  for (const ReduceKernelTarget& target : reduce_kernel_targets()) {
    const ForcedReduceTarget forced(target);
    for (const auto& [op, value] : neutral) {
      const std::vector<std::uint16_t> other(patterns.size(), value);
      for (const int divisor : {1, 2, 3}) {
        std::vector<std::uint16_t> got = patterns, want = patterns;
        reduce_into(got.data(), other.data(), got.size(), type, op);
        reference::reduce_into(want.data(), other.data(), want.size(), type, op);
        divide_elements(got.data(), got.size(), type, divisor);
        reference::divide_elements(want.data(), want.size(), type, divisor);
        for (std::size_t i = 0; i < got.size(); ++i)
          ASSERT_EQ(got[i], want[i]) << target.name << " " << name_of(op) << " divisor " << divisor << " pattern 0x"
                                     << std::hex << i;
      }
    }
  }
}

TEST(ReduceTargetsHalf, EveryFloat16PatternAsTheReference) { expect_every_pattern_as_reference(DataType::float16); }
TEST(ReduceTargetsHalf, EveryBFloat16PatternAsTheReference) { expect_every_pattern_as_reference(DataType::bfloat16); }

TEST(ReduceTargetsList, BestFirstAndNamed) {
  const auto targets = reduce_kernel_targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(reduce_kernel_target(), targets.front().name);
  for (std::size_t i = 1; i < targets.size(); ++i) EXPECT_LT(targets[i - 1].bit, targets[i].bit) << "best target first";
  for (const auto& target : targets) EXPECT_FALSE(target.name.empty());
}

}  // namespace
}  // namespace ringlab
