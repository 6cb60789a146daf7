// Device reduction kernels, the only CUDA device code of ringlab (compiled once; see
// device_reduce.hpp). One grid-stride kernel per (element type, functor):
// 1. vector part: when out, a and b have the same offset within 16 bytes, the elements from the
//    first 16-byte boundary of out on are processed as 16-byte packs (one load of a, one of b,
//    one store of out per pack, 16 / sizeof(T) lanes each);
// 2. scalar part: the head before that boundary and the tail after the last whole pack (or every
//    element when the alignments differ) are processed one element per thread;
// 3. each lane is combined with reduce_ops (the CPU kernels' arithmetic), so results are
//    bit-identical to reduce.cpp's.
#include "device_reduce.hpp"

#include <algorithm>
#include <cstdint>

#include "reduce_ops.hpp"

namespace ringlab::cuda {
namespace {

constexpr unsigned threads_per_block = 256;
constexpr std::size_t max_blocks = 4096;
constexpr std::size_t vector_bytes = 16;

template <typename T>
struct alignas(vector_bytes) Pack {
  T lane[vector_bytes / sizeof(T)];
};

// Combines two elements: the reduction operator of reduce_ops.
template <typename T, typename Op>
struct Combine {
  Op op;
  __device__ T operator()(T a, T b) const {
    using A = reduce_ops::Arith<T>;
    return A::store(op(A::load(a), A::load(b)));
  }
};

// The average's last step; the second operand is ignored (never loaded, see kUnary).
template <typename T>
struct Divide {
  int divisor;
  __device__ T operator()(T a, T) const { return reduce_ops::divided(a, divisor); }
};

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
#pragma unroll
    for (std::size_t lane = 0; lane < lanes; ++lane) result.lane[lane] = f(x.lane[lane], y.lane[lane]);
    out_packs[p] = result;
  }
  const std::size_t tail_start = split.head + split.packs * lanes;
  const std::size_t scalars = split.head + (count - tail_start);
  for (std::size_t s = first; s < scalars; s += stride) {
    const std::size_t i = s < split.head ? s : tail_start + (s - split.head);
    out[i] = f(a[i], kUnary ? a[i] : b[i]);
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
      status = launch<T, false>(out, a, b, count, Combine<T, decltype(fn)>{fn}, stream);
    });
  });
  return status;
}

cudaError_t divide_on_device(void* data, std::size_t count, DataType type, int divisor, cudaStream_t stream) {
  cudaError_t status = cudaSuccess;
  reduce_ops::with_type(type, [&](auto tag) {
    using T = decltype(tag);
    status = launch<T, true>(data, data, data, count, Divide<T>{divisor}, stream);
  });
  return status;
}

}  // namespace ringlab::cuda
