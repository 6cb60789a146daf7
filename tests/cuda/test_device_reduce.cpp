// The device reduce kernels against the CPU kernels, bit for bit, for every type x op, counts
// around the 16-byte pack size and pointers offset so that the vector part, the scalar head and
// tail, and the all-scalar path (different alignments) all run. Inputs are finite (NaN payloads
// are not compared: the GPU returns its canonical NaN where the CPU keeps the operand's).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "device_memory.hpp"
#include "device_reduce.hpp"
#include "gpu_test_support.hpp"
#include "reduce.hpp"

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

}  // namespace
}  // namespace ringlab::cuda
