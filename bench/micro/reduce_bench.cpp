// Microbenchmarks for the CPU reduction kernels (every type and op, and the scalar reference for
// sum) against a memcpy baseline, all on 64 MiB arrays.
// Bytes processed counts every byte read and written: memcpy 2x, reduce_into/reduce_to 3x.
// No main: link benchmark::benchmark_main.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/datatype.hpp"
#include "collectives/reduce.hpp"
#include "collectives/reduce_reference.hpp"

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

// The value of `in` that leaves inout steady however many iterations run: x + 0, x * 1, and
// min/max against 0 (steady after the first pass).
int steady_operand(ReduceOp op) { return op == ReduceOp::prod ? 1 : 0; }

using ReduceFunction = void (*)(void*, const void*, std::size_t, DataType, ReduceOp);

// inout = inout (op) in over 64 MiB with `reduce` (the dispatched kernels or the scalar reference).
void BM_reduce_into(benchmark::State& state, ReduceFunction reduce, DataType type, ReduceOp op) {
  std::vector<std::byte> inout = filled_buffer(type, 1);
  const std::vector<std::byte> in = filled_buffer(type, steady_operand(op));
  const std::size_t count = buffer_bytes / ringlab::element_size(type);
  for (auto _ : state) {
    reduce(inout.data(), in.data(), count, type, op);
    benchmark::DoNotOptimize(inout.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 3 * static_cast<std::int64_t>(buffer_bytes));
}

// BM_reduce_into/TYPE/OP for every type and op on the kernels the CPU dispatches to (named in the
// report's context as reduce_kernel_target), and BM_reduce_into_reference/TYPE/sum for the scalar
// reference loop they replaced, in the same run.
const bool reduce_benchmarks_registered = [] {
  benchmark::AddCustomContext("reduce_kernel_target", ringlab::reduce_kernel_target());
  for (const DataType type : ringlab::all_data_types) {
    for (const ReduceOp op : ringlab::all_reduce_ops) {
      const std::string name = "BM_reduce_into/" + std::string(ringlab::name_of(type)) + "/" + std::string(ringlab::name_of(op));
      benchmark::RegisterBenchmark(name.c_str(), BM_reduce_into, &ringlab::reduce_into, type, op)
          ->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
    }
    const std::string name = "BM_reduce_into_reference/" + std::string(ringlab::name_of(type)) + "/sum";
    benchmark::RegisterBenchmark(name.c_str(), BM_reduce_into, &ringlab::reference::reduce_into, type, ReduceOp::sum)
        ->UseRealTime()->MinTime(min_time_s)->Unit(benchmark::kMillisecond);
  }
  return true;
}();

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
