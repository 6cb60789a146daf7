// Device reduction kernels, the only CUDA device code of ringlab (compiled once; see
// device_reduce.hpp). One grid-stride kernel per (element type, functor):
// 1. vector part: when out, a and b have the same offset within 16 bytes, the elements from the
//    first 16-byte boundary of out on are processed as 16-byte packs (one load of a, one of b,
//    one store of out per pack, 16 / sizeof(T) lanes each);
// 2. scalar part: the head before that boundary and the tail after the last whole pack (or every
//    element when the alignments differ) are processed one element per thread;
// 3. each lane is combined with reduce_ops (the CPU kernels' arithmetic), so results are
//    bit-identical to reduce.cpp's. float16 and bfloat16 lanes are widened to float and narrowed
//    back with the GPU's conversion instructions (Fast below), which round as datatype.hpp's bit
//    routines do; a pack with a NaN result is done again with those routines.
#include "collectives/cuda/device_reduce.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "collectives/reduce_ops.hpp"

namespace ringlab::cuda {
namespace {

constexpr unsigned threads_per_block = 256;
constexpr std::size_t max_blocks = 4096;
constexpr std::size_t vector_bytes = 16;

template <typename T>
struct alignas(vector_bytes) Pack {
  T lane[vector_bytes / sizeof(T)];
};

// Fast<T>: how an element is loaded into the type the arithmetic runs in and stored back on the
// hot path. reduce_ops::Arith (the CPU's) for every type but float16 and bfloat16, which use the
// GPU's conversion instructions instead of datatype.hpp's bit routines:
// - why: those routines cost about 35 integer PTX instructions and several branches per float16
//   element (and a loop per subnormal). At a current GPU's copy speed that is more integer
//   instructions per second than its SMs issue: the kernel would be compute bound. With the
//   instructions, a float16 lane is 2 HADD2.F32 (widening), the operation, a NaN test and half
//   an F2FP (ptxas packs two narrowings into one) in the sm_90 code.
// - same bits for every value that is not NaN: widening is exact (subnormals included; nvcc
//   does not flush them to zero without -ftz=true or --use_fast_math) and narrowing rounds to
//   nearest even with overflow to infinity, as IEEE 754 defines it and datatype.hpp implements it.
// - NaN: the instructions may give the GPU's canonical NaN where datatype.hpp keeps the sign
//   and payload. So a pack with a lane whose result in float is NaN is done again with
//   reduce_ops::Arith (fast_lane, reference_lane). A NaN operand that does not reach the result
//   (min, max) does no harm: comparisons do not look at payloads.
template <typename T>
struct Fast : reduce_ops::Arith<T> {
  static constexpr bool may_differ_on_nan = false;
};

template <>
struct Fast<float16> {
  using type = float;
  static constexpr bool may_differ_on_nan = true;
  __device__ static float load(float16 value) { return __half2float(__ushort_as_half(value.bits)); }  // cvt.f32.f16
  __device__ static float16 store(float value) { return float16{__half_as_ushort(__float2half_rn(value))}; }
};

template <>
struct Fast<bfloat16> {
  using type = float;
  static constexpr bool may_differ_on_nan = true;
  // Widening is a 16-bit shift in datatype.hpp already, NaN included.
  __device__ static float load(bfloat16 value) { return to_float(value); }
  __device__ static bfloat16 store(float value) {  // cvt.rn.bf16.f32 (sm_80 on)
    return bfloat16{__bfloat16_as_ushort(__float2bfloat16_rn(value))};
  }
};

// The functors compute one lane in the arithmetic type of A (Fast<T> or reduce_ops::Arith<T>).
// Combines two elements with the reduction operator of reduce_ops.
template <typename Op>
struct Combine {
  Op op;
  template <typename A, typename T>
  __device__ typename A::type wide(T a, T b) const {
    return op(A::load(a), A::load(b));
  }
};

// The average's last step, as reduce_ops::divided; the second operand is ignored (never loaded,
// see kUnary).
struct Divide {
  int divisor;
  template <typename A, typename T>
  __device__ typename A::type wide(T a, T) const {
    using C = typename A::type;
    return static_cast<C>(A::load(a) / static_cast<C>(divisor));
  }
};

// One lane with the CPU's conversions (reduce_ops::Arith): the reference, for NaN results.
template <typename T, typename F>
__device__ __noinline__ T reference_lane(const F& f, T a, T b) {
  using A = reduce_ops::Arith<T>;
  return A::store(f.template wide<A>(a, b));
}

// One lane on the hot path; sets `nan` when its result must be taken from reference_lane.
template <typename T, typename F>
__device__ T fast_lane(const F& f, T a, T b, bool& nan) {
  using A = Fast<T>;
  const typename A::type wide = f.template wide<A>(a, b);
  if constexpr (A::may_differ_on_nan) nan = nan || wide != wide;
  return A::store(wide);
}

// Where the vector part starts and how many packs it has.
struct Split {
  std::size_t head = 0;     // scalar elements before the first pack
  std::size_t packs = 0;    // whole 16-byte packs after the head
};

template <typename T>
Split split_for(const void* out, const void* a, const void* b, std::size_t count) {
  const auto offset = reinterpret_cast<std::uintptr_t>(out) % vector_bytes;
  const bool same_alignment = reinterpret_cast<std::uintptr_t>(a) % vector_bytes == offset &&
                              (b == nullptr || reinterpret_cast<std::uintptr_t>(b) % vector_bytes == offset);
  if (!same_alignment || offset % sizeof(T) != 0) return {count, 0};
  const std::size_t head = std::min(count, (vector_bytes - offset) % vector_bytes / sizeof(T));
  return {head, (count - head) / (vector_bytes / sizeof(T))};
}

template <typename T, typename F, bool kUnary>
__global__ void elementwise_kernel(T* out, const T* a, const T* b, std::size_t count, Split split, F f) {
  constexpr std::size_t lanes = vector_bytes / sizeof(T);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* out_packs = reinterpret_cast<Pack<T>*>(out + split.head);
  const auto* a_packs = reinterpret_cast<const Pack<T>*>(a + split.head);
  const auto* b_packs = reinterpret_cast<const Pack<T>*>((kUnary ? a : b) + split.head);
  for (std::size_t p = first; p < split.packs; p += stride) {
    const Pack<T> x = a_packs[p];
    const Pack<T> y = kUnary ? x : b_packs[p];
    Pack<T> result;
    bool nan = false;
#pragma unroll
    for (std::size_t lane = 0; lane < lanes; ++lane) result.lane[lane] = fast_lane(f, x.lane[lane], y.lane[lane], nan);
    if (nan) {  // rare: one branch per pack, the lanes again with the CPU's conversions (unrolled too,
                // so that the packs stay in registers)
#pragma unroll
      for (std::size_t lane = 0; lane < lanes; ++lane) result.lane[lane] = reference_lane(f, x.lane[lane], y.lane[lane]);
    }
    out_packs[p] = result;
  }
  const std::size_t tail_start = split.head + split.packs * lanes;
  const std::size_t scalars = split.head + (count - tail_start);
  for (std::size_t s = first; s < scalars; s += stride) {
    const std::size_t i = s < split.head ? s : tail_start + (s - split.head);
    const T x = a[i];
    const T y = kUnary ? x : b[i];
    bool nan = false;
    const T result = fast_lane(f, x, y, nan);
    out[i] = nan ? reference_lane(f, x, y) : result;
  }
}

template <typename T, bool kUnary, typename F>
cudaError_t launch(void* out, const void* a, const void* b, std::size_t count, F f, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const Split split = split_for<T>(out, a, kUnary ? nullptr : b, count);
  const std::size_t work = split.packs + split.head + (count - split.head - split.packs * (vector_bytes / sizeof(T)));
  const auto blocks =
      static_cast<unsigned>(std::clamp<std::size_t>((work + threads_per_block - 1) / threads_per_block, 1, max_blocks));
  elementwise_kernel<T, F, kUnary><<<blocks, threads_per_block, 0, stream>>>(
      static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), count, split, f);
  return cudaGetLastError();
}

}  // namespace

cudaError_t reduce_on_device(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op,
                             cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  reduce_ops::with_type(type, [&](auto tag) {
    using T = decltype(tag);
    reduce_ops::with_op(op, [&](auto fn) {
      status = launch<T, false>(out, a, b, count, Combine<decltype(fn)>{fn}, stream);
    });
  });
  return status;
}

cudaError_t divide_on_device(void* data, std::size_t count, DataType type, int divisor, cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  reduce_ops::with_type(type, [&](auto tag) {
    using T = decltype(tag);
    status = launch<T, true>(data, data, data, count, Divide{divisor}, stream);
  });
  return status;
}

}  // namespace ringlab::cuda
