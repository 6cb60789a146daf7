// The device reduce kernels against the CPU kernels, bit for bit, for every type x op, counts
// around the 16-byte pack size and pointers offset so that the vector part, the scalar head and
// tail, and the all-scalar path (different alignments) all run. Inputs are finite (NaN payloads
// are not compared: the GPU returns its canonical NaN where the CPU keeps the operand's).
// DeviceReduceHalf checks the float16 and bfloat16 kernels' own conversions (the GPU's
// instructions, device_reduce.cu's Fast) harder: every bit pattern, odd lengths and misaligned
// pointers around their 8-lane packs, in place, and NaN operands of min and max.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "collectives/cuda/device_memory.hpp"
#include "collectives/cuda/device_reduce.hpp"
#include "tests/cuda/gpu_test_support.hpp"
#include "collectives/reduce.hpp"
#include "collectives/reduce_ops.hpp"

namespace ringlab::cuda {
namespace {

// `count` random finite elements of `type` (any bits for integers).
std::vector<std::byte> random_elements(DataType type, std::size_t count, std::uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::byte> data(count * element_size(type));
  std::uniform_real_distribution<double> magnitude(-30.0, 30.0);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* element = data.data() + i * element_size(type);
    const double value = std::ldexp(std::uniform_real_distribution<double>(-1.0, 1.0)(random), static_cast<int>(magnitude(random)));
    switch (type) {
      case DataType::float32: { const auto v = static_cast<float>(value); std::memcpy(element, &v, 4); break; }
      case DataType::float64: std::memcpy(element, &value, 8); break;
      case DataType::float16: {  // |v| < 2^12: sums stay finite, no inf - inf
        const float16 v = to_float16(static_cast<float>(std::ldexp(value, -18)));
        std::memcpy(element, &v, 2);
        break;
      }
      case DataType::bfloat16: { const bfloat16 v = to_bfloat16(static_cast<float>(value)); std::memcpy(element, &v, 2); break; }
      case DataType::int32: { const auto v = static_cast<std::uint32_t>(random()); std::memcpy(element, &v, 4); break; }
      case DataType::int64: { const std::uint64_t v = random(); std::memcpy(element, &v, 8); break; }
    }
  }
  return data;
}

struct Offsets {
  std::size_t out, a, b;  // in elements
};

class DeviceReduce : public ::testing::TestWithParam<DataType> {
 protected:
  void SetUp() override { RINGLAB_SKIP_WITHOUT_GPU(); }
};

TEST_P(DeviceReduce, MatchesTheCpuKernelsBitForBit) {
  const DataType type = GetParam();
  const std::size_t element = element_size(type);
  const std::size_t counts[] = {0, 1, 7, 8, 9, 31, 1000, 65536 + 3};
  const Offsets offsets[] = {{0, 0, 0}, {1, 1, 1}, {3, 3, 3}, {0, 1, 2}, {2, 0, 0}};
  const std::size_t slack = 8;
  Stream stream({-1, 0});
  for (ReduceOp op : all_reduce_ops)
    for (std::size_t count : counts)
      for (const Offsets& offset : offsets) {
        const std::size_t span = (count + slack) * element;
        const auto a = random_elements(type, count + slack, 1);
        const auto b = random_elements(type, count + slack, 2);
        std::vector<std::byte> expected = random_elements(type, count + slack, 3);  // also the output's fill
        DeviceBuffer out_device(span, {-1, 0}), a_device(span, {-1, 0}), b_device(span, {-1, 0});
        check_cuda(cudaMemcpy(out_device.bytes().data(), expected.data(), span, cudaMemcpyHostToDevice), {-1, 0}, "copy");
        check_cuda(cudaMemcpy(a_device.bytes().data(), a.data(), span, cudaMemcpyHostToDevice), {-1, 0}, "copy");
        check_cuda(cudaMemcpy(b_device.bytes().data(), b.data(), span, cudaMemcpyHostToDevice), {-1, 0}, "copy");
        ringlab::reduce_to(expected.data() + offset.out * element, a.data() + offset.a * element,
                           b.data() + offset.b * element, count, type, op);
        check_cuda(reduce_on_device(out_device.bytes().data() + offset.out * element,
                                    a_device.bytes().data() + offset.a * element,
                                    b_device.bytes().data() + offset.b * element, count, type, op, stream.get()),
                   {-1, 0}, "reduce_on_device");
        check_cuda(cudaStreamSynchronize(stream.get()), {-1, 0}, "cudaStreamSynchronize");
        std::vector<std::byte> actual(span);
        check_cuda(cudaMemcpy(actual.data(), out_device.bytes().data(), span, cudaMemcpyDeviceToHost), {-1, 0}, "copy");
        EXPECT_EQ(actual, expected) << name_of(type) << " " << name_of(op) << " count " << count << " offsets "
                                    << offset.out << "," << offset.a << "," << offset.b;
      }
}

TEST_P(DeviceReduce, InPlaceAndDivideMatchTheCpuKernels) {
  const DataType type = GetParam();
  const std::size_t count = 4099;
  const std::size_t bytes = count * element_size(type);
  Stream stream({-1, 0});
  for (int divisor : {3, 7}) {
    std::vector<std::byte> expected = random_elements(type, count, 4);
    const auto in = random_elements(type, count, 5);
    DeviceBuffer inout_device(bytes, {-1, 0}), in_device(bytes, {-1, 0});
    check_cuda(cudaMemcpy(inout_device.bytes().data(), expected.data(), bytes, cudaMemcpyHostToDevice), {-1, 0}, "copy");
    check_cuda(cudaMemcpy(in_device.bytes().data(), in.data(), bytes, cudaMemcpyHostToDevice), {-1, 0}, "copy");
    ringlab::reduce_into(expected.data(), in.data(), count, type, ReduceOp::sum);
    divide_elements(expected.data(), count, type, divisor);
    std::byte* inout = inout_device.bytes().data();
    check_cuda(reduce_on_device(inout, inout, in_device.bytes().data(), count, type, ReduceOp::sum, stream.get()),
               {-1, 0}, "reduce_on_device");
    check_cuda(divide_on_device(inout, count, type, divisor, stream.get()), {-1, 0}, "divide_on_device");
    std::vector<std::byte> actual(bytes);
    check_cuda(cudaMemcpyAsync(actual.data(), inout, bytes, cudaMemcpyDeviceToHost, stream.get()), {-1, 0}, "copy");
    check_cuda(cudaStreamSynchronize(stream.get()), {-1, 0}, "cudaStreamSynchronize");
    EXPECT_EQ(actual, expected) << name_of(type) << " divisor " << divisor;
  }
}

INSTANTIATE_TEST_SUITE_P(DeviceReduce, DeviceReduce, ::testing::ValuesIn(all_data_types),
                         [](const ::testing::TestParamInfo<DataType>& param_info) { return std::string(name_of(param_info.param)); });

// The 16-bit types: exponent and mantissa masks, to tell NaN, infinity and zero apart.
struct HalfLayout {
  std::uint16_t exponent, mantissa;
};
HalfLayout layout_of(DataType type) {
  return type == DataType::float16 ? HalfLayout{0x7c00, 0x03ff} : HalfLayout{0x7f80, 0x007f};
}
bool is_nan(HalfLayout layout, std::uint16_t bits) {
  return (bits & layout.exponent) == layout.exponent && (bits & layout.mantissa) != 0;
}
bool is_finite_nonzero(HalfLayout layout, std::uint16_t bits) {
  return (bits & layout.exponent) != layout.exponent && (bits & 0x7fffU) != 0;
}

// "" when the buffers are equal, else how many elements of `element` bytes differ and the first
// (gtest would print every byte of both buffers).
std::string differences(const std::vector<std::byte>& actual, const std::vector<std::byte>& expected,
                        std::size_t element) {
  if (actual.size() != expected.size()) return "sizes differ";
  std::size_t count = 0, first = 0;
  for (std::size_t i = 0; i < actual.size(); i += element)
    if (std::memcmp(actual.data() + i, expected.data() + i, element) != 0 && count++ == 0) first = i / element;
  if (count == 0) return "";
  std::uint64_t device = 0, host = 0;
  std::memcpy(&device, actual.data() + first * element, element);
  std::memcpy(&host, expected.data() + first * element, element);
  return fmt::format("{} elements differ, the first at {}: device {:#x}, host {:#x}", count, first, device, host);
}

std::vector<std::byte> as_bytes(const std::vector<std::uint16_t>& elements) {
  std::vector<std::byte> bytes(elements.size() * 2);
  std::memcpy(bytes.data(), elements.data(), bytes.size());
  return bytes;
}

// Device copies of three host buffers of the same size, the output, a and b.
struct DeviceTriple {
  DeviceBuffer out, a, b;
  explicit DeviceTriple(std::size_t bytes) : out(bytes, {-1, 0}), a(bytes, {-1, 0}), b(bytes, {-1, 0}) {}
};

void upload(DeviceBuffer& device, const std::vector<std::byte>& host) {
  check_cuda(cudaMemcpy(device.bytes().data(), host.data(), host.size(), cudaMemcpyHostToDevice), {-1, 0}, "copy");
}
std::vector<std::byte> download(DeviceBuffer& device, std::size_t bytes) {
  std::vector<std::byte> host(bytes);
  check_cuda(cudaMemcpy(host.data(), device.bytes().data(), bytes, cudaMemcpyDeviceToHost), {-1, 0}, "copy");
  return host;
}

// out = a (op) b on the device and on the host, at element offsets `offset`, or a (op)= b when
// `in_place` (the output is a's buffer; offset.out is not used). Returns the device's whole
// output buffer and sets `expected` to the host's.
std::vector<std::byte> reduce_both(DeviceTriple& device, DataType type, ReduceOp op, std::size_t count,
                                   const Offsets& offset, bool in_place, const std::vector<std::byte>& a,
                                   const std::vector<std::byte>& b, const std::vector<std::byte>& fill,
                                   std::vector<std::byte>& expected) {
  const std::size_t element = element_size(type);
  upload(device.a, a);
  upload(device.b, b);
  upload(device.out, fill);
  std::byte* a_device = device.a.bytes().data() + offset.a * element;
  const std::byte* b_device = device.b.bytes().data() + offset.b * element;
  if (in_place) {
    expected = a;
    ringlab::reduce_into(expected.data() + offset.a * element, b.data() + offset.b * element, count, type, op);
    check_cuda(reduce_on_device(a_device, a_device, b_device, count, type, op, nullptr), {-1, 0}, "reduce_on_device");
    check_cuda(cudaDeviceSynchronize(), {-1, 0}, "cudaDeviceSynchronize");
    return download(device.a, a.size());
  }
  expected = fill;
  ringlab::reduce_to(expected.data() + offset.out * element, a.data() + offset.a * element,
                     b.data() + offset.b * element, count, type, op);
  check_cuda(reduce_on_device(device.out.bytes().data() + offset.out * element, a_device, b_device, count, type, op,
                              nullptr),
             {-1, 0}, "reduce_on_device");
  check_cuda(cudaDeviceSynchronize(), {-1, 0}, "cudaDeviceSynchronize");
  return download(device.out, fill.size());
}

class DeviceReduceHalf : public ::testing::TestWithParam<DataType> {
 protected:
  void SetUp() override { RINGLAB_SKIP_WITHOUT_GPU(); }
};

// a runs through every bit pattern that is not NaN (zeros, subnormals, normals, the largest
// finite values, infinities), b through finite nonzero ones, so that no result is NaN: every
// widening, and narrowing to subnormals, ties and overflow to infinity, for each op and the
// average's divide, through the packs, the scalar head and tail, and the all-scalar path.
TEST_P(DeviceReduceHalf, EveryBitPatternMatchesTheCpu) {
  const DataType type = GetParam();
  const HalfLayout layout = layout_of(type);
  std::vector<std::uint16_t> a_bits, b_choices;
  for (std::uint32_t bits = 0; bits <= 0xffffU; ++bits) {
    const auto pattern = static_cast<std::uint16_t>(bits);
    if (!is_nan(layout, pattern)) a_bits.push_back(pattern);
    if (is_finite_nonzero(layout, pattern)) b_choices.push_back(pattern);
  }
  const std::size_t slack = 8;  // room for the offsets below
  std::vector<std::uint16_t> b_bits(a_bits.size());
  for (std::size_t i = 0; i < b_bits.size(); ++i) b_bits[i] = b_choices[(i * 7919 + 13) % b_choices.size()];
  a_bits.resize(a_bits.size() + slack, 0x3c00);  // any finite value
  b_bits.resize(b_bits.size() + slack, 0x3c00);
  const auto a = as_bytes(a_bits), b = as_bytes(b_bits);
  const std::vector<std::byte> fill(a.size(), std::byte{0x11});
  const std::size_t count = a_bits.size() - slack;
  DeviceTriple device(a.size());
  const Offsets placements[] = {{0, 0, 0}, {3, 3, 3}, {0, 1, 0}};  // packs, head and tail, all scalar
  for (const Offsets& offset : placements)
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
      std::vector<std::byte> expected;
      const auto actual = reduce_both(device, type, op, count, offset, false, a, b, fill, expected);
      EXPECT_EQ(differences(actual, expected, 2), "") << name_of(type) << " " << name_of(op) << " offsets "
                                                      << offset.out << "," << offset.a << "," << offset.b;
    }
  for (int divisor : {3, 7, 1000}) {
    std::vector<std::byte> expected = a;
    divide_elements(expected.data(), count, type, divisor);
    upload(device.a, a);
    check_cuda(divide_on_device(device.a.bytes().data(), count, type, divisor, nullptr), {-1, 0}, "divide_on_device");
    check_cuda(cudaDeviceSynchronize(), {-1, 0}, "cudaDeviceSynchronize");
    EXPECT_EQ(differences(download(device.a, a.size()), expected, 2), "") << name_of(type) << " divisor " << divisor;
  }
}

// Lengths around the 8-lane pack (16 bytes) and offsets that give every head length, the
// all-scalar path (different alignments) and the in-place form; the bytes around the result are
// compared too, so a store past either end shows.
TEST_P(DeviceReduceHalf, OddLengthsAndMisalignedPointers) {
  const DataType type = GetParam();
  const std::size_t counts[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 1025};
  const Offsets offsets[] = {{0, 0, 0}, {1, 1, 1}, {3, 3, 3}, {4, 4, 4}, {7, 7, 7}, {0, 1, 2}, {2, 0, 0}, {6, 6, 1}};
  const std::size_t slack = 16;
  const std::size_t largest = *std::max_element(std::begin(counts), std::end(counts)) + slack;
  const auto a = random_elements(type, largest, 6);
  const auto b = random_elements(type, largest, 7);
  const auto fill = random_elements(type, largest, 8);
  DeviceTriple device(a.size());
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::min})
    for (bool in_place : {false, true})
      for (std::size_t count : counts)
        for (const Offsets& offset : offsets) {
          std::vector<std::byte> expected;
          const auto actual = reduce_both(device, type, op, count, offset, in_place, a, b, fill, expected);
          EXPECT_EQ(differences(actual, expected, 2), "") << name_of(type) << " " << name_of(op) << (in_place ? " in place" : "")
                                      << " count " << count << " offsets " << offset.out << "," << offset.a << ","
                                      << offset.b;
        }
}

// reduce_ops.hpp's definition of one 16-bit lane (what the CPU kernels compute), from bits to bits.
template <typename T>
std::uint16_t reference_lane(ReduceOp op, std::uint16_t a, std::uint16_t b) {
  using A = reduce_ops::Arith<T>;
  T result{};
  reduce_ops::with_op(op, [&](auto fn) { result = A::store(fn(A::load(T{a}), A::load(T{b}))); });
  return result.bits;
}

// NaN operands of min and max (quiet and signalling, both signs, several payloads) among finite
// ones: where the NaN is the result, the kernel's pack is done again with datatype.hpp's
// conversions, so it carries their bits (compared with reduce_ops.hpp lane by lane, which the
// CPU kernels need to match for finite values only); its neighbours in the pack are unchanged.
TEST_P(DeviceReduceHalf, NanOperandsOfMinAndMaxKeepTheReferenceBits) {
  const DataType type = GetParam();
  const HalfLayout layout = layout_of(type);
  const std::size_t count = 4099;
  std::vector<std::uint16_t> a(count), b(count);
  const auto a_random = random_elements(type, count, 9), b_random = random_elements(type, count, 10);
  std::memcpy(a.data(), a_random.data(), a_random.size());
  std::memcpy(b.data(), b_random.data(), b_random.size());
  std::mt19937 random(11);
  for (std::size_t i = 0; i < count; i += 5 + random() % 13) {
    const auto payload = static_cast<std::uint16_t>(1 + random() % layout.mantissa);
    const auto sign = static_cast<std::uint16_t>(random() % 2 ? 0x8000 : 0);
    (random() % 2 ? a : b)[i] = static_cast<std::uint16_t>(sign | layout.exponent | payload);
  }
  DeviceTriple device(count * 2);
  upload(device.a, as_bytes(a));
  upload(device.b, as_bytes(b));
  const std::size_t n = count - 1;
  for (ReduceOp op : {ReduceOp::min, ReduceOp::max})
    for (std::size_t a_offset : {0, 1}) {  // packs with head and tail; all scalar
      std::vector<std::uint16_t> expected(n);
      for (std::size_t i = 0; i < n; ++i)
        expected[i] = type == DataType::float16 ? reference_lane<float16>(op, a[i + a_offset], b[i])
                                                : reference_lane<bfloat16>(op, a[i + a_offset], b[i]);
      check_cuda(reduce_on_device(device.out.bytes().data(), device.a.bytes().data() + 2 * a_offset,
                                  device.b.bytes().data(), n, type, op, nullptr),
                 {-1, 0}, "reduce_on_device");
      check_cuda(cudaDeviceSynchronize(), {-1, 0}, "cudaDeviceSynchronize");
      std::vector<std::uint16_t> actual(n);
      check_cuda(cudaMemcpy(actual.data(), device.out.bytes().data(), n * 2, cudaMemcpyDeviceToHost), {-1, 0}, "copy");
      EXPECT_EQ(differences(as_bytes(actual), as_bytes(expected), 2), "")
          << name_of(type) << " " << name_of(op) << " a offset " << a_offset;
    }
}

INSTANTIATE_TEST_SUITE_P(DeviceReduceHalf, DeviceReduceHalf, ::testing::Values(DataType::float16, DataType::bfloat16),
                         [](const ::testing::TestParamInfo<DataType>& param_info) { return std::string(name_of(param_info.param)); });

}  // namespace
}  // namespace ringlab::cuda
