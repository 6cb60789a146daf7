// The scalar reference kernels (reduce_reference.hpp). One template loop per (element type, op)
// over restrict pointers; the (type, op) switch sits outside the loop. The arithmetic itself is in
// reduce_ops.hpp, shared with the CUDA kernels.
#include "collectives/reduce_reference.hpp"

#include "collectives/reduce_ops.hpp"

namespace ringlab::reference {
namespace {

using reduce_ops::Arith;
using reduce_ops::with_op;
using reduce_ops::with_type;

template <typename T, typename Op>
void reduce_into_kernel(T* __restrict inout, const T* __restrict in, std::size_t count, Op op) {
  using A = Arith<T>;
  for (std::size_t i = 0; i < count; ++i) inout[i] = A::store(op(A::load(inout[i]), A::load(in[i])));
}

template <typename T, typename Op>
void reduce_to_kernel(T* __restrict out, const T* __restrict a, const T* __restrict b, std::size_t count,
                      Op op) {
  using A = Arith<T>;
  for (std::size_t i = 0; i < count; ++i) out[i] = A::store(op(A::load(a[i]), A::load(b[i])));
}

template <typename T>
void divide_kernel(T* __restrict data, std::size_t count, int divisor) {
  for (std::size_t i = 0; i < count; ++i) data[i] = reduce_ops::divided(data[i], divisor);
}

}  // namespace

void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  with_type(type, [&](auto tag) {
    using T = decltype(tag);
    with_op(op, [&](auto fn) { reduce_into_kernel(static_cast<T*>(inout), static_cast<const T*>(in), count, fn); });
  });
}

void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) {
  with_type(type, [&](auto tag) {
    using T = decltype(tag);
    with_op(op, [&](auto fn) {
      reduce_to_kernel(static_cast<T*>(out), static_cast<const T*>(a), static_cast<const T*>(b), count, fn);
    });
  });
}

void divide_elements(void* data, std::size_t count, DataType type, int divisor) {
  with_type(type, [&](auto tag) {
    using T = decltype(tag);
    divide_kernel(static_cast<T*>(data), count, divisor);
  });
}

}  // namespace ringlab::reference
