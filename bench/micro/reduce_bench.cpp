// Microbenchmarks for the CPU reduction kernels against a memcpy baseline, all on 64 MiB arrays.
// Bytes processed counts every byte read and written: memcpy 2x, reduce_into/reduce_to 3x.
// No main: link benchmark::benchmark_main.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "datatype.hpp"
#include "reduce.hpp"

namespace {

using ringlab::DataType;
using ringlab::ReduceOp;

constexpr std::size_t buffer_bytes = std::size_t{64} << 20;
constexpr double min_time_s = 0.2;

// A buffer of buffer_bytes with every element set to `value` (so the pages are touched).
std::vector<std::byte> filled_buffer(DataType type, int value) {
  std::vector<std::byte> buffer(buffer_bytes);
  const std::size_t count = buffer_bytes / ringlab::element_size(type);
  void* data = buffer.data();
  const auto f = static_cast<float>(value);
  for (std::size_t i = 0; i < count; ++i) {
    switch (type) {
      case DataType::float32: static_cast<float*>(data)[i] = f; break;
      case DataType::float64: static_cast<double*>(data)[i] = value; break;
      case DataType::float16: static_cast<ringlab::float16*>(data)[i] = ringlab::to_float16(f); break;
      case DataType::bfloat16: static_cast<ringlab::bfloat16*>(data)[i] = ringlab::to_bfloat16(f); break;
      case DataType::int32: static_cast<std::int32_t*>(data)[i] = value; break;
      case DataType::int64: static_cast<std::int64_t*>(data)[i] = value; break;
    }
  }
  return buffer;
}

void BM_memcpy(benchmark::State& state) {
  std::vector<std::byte> src(buffer_bytes, std::byte{1});
  std::vector<std::byte> dst(buffer_bytes, std::byte{2});
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), buffer_bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * static_cast<std::int64_t>(buffer_bytes));
}
BENCHMARK(BM_memcpy)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);

// inout += in with in == 0, so the values stay put however many iterations run.
void BM_reduce_into(benchmark::State& state, DataType type) {
  std::vector<std::byte> inout = filled_buffer(type, 1);
  const std::vector<std::byte> in = filled_buffer(type, 0);
  const std::size_t count = buffer_bytes / ringlab::element_size(type);
  for (auto _ : state) {
    ringlab::reduce_into(inout.data(), in.data(), count, type, ReduceOp::sum);
    benchmark::DoNotOptimize(inout.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 3 * static_cast<std::int64_t>(buffer_bytes));
}
BENCHMARK_CAPTURE(BM_reduce_into, float32, DataType::float32)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_reduce_into, float64, DataType::float64)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_reduce_into, float16, DataType::float16)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_reduce_into, bfloat16, DataType::bfloat16)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_reduce_into, int32, DataType::int32)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_reduce_into, int64, DataType::int64)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);

void BM_reduce_to_float32_sum(benchmark::State& state) {
  const std::vector<std::byte> a = filled_buffer(DataType::float32, 1);
  const std::vector<std::byte> b = filled_buffer(DataType::float32, 2);
  std::vector<std::byte> out = filled_buffer(DataType::float32, 0);
  const std::size_t count = buffer_bytes / sizeof(float);
  for (auto _ : state) {
    ringlab::reduce_to(out.data(), a.data(), b.data(), count, DataType::float32, ReduceOp::sum);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 3 * static_cast<std::int64_t>(buffer_bytes));
}
BENCHMARK(BM_reduce_to_float32_sum)->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);

}  // namespace
