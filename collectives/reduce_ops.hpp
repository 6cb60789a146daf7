// The element-wise arithmetic of every DataType x ReduceOp, shared by the CPU kernels
// (reduce.cpp) and the CUDA kernels (cuda/device_reduce.cu) so both give bit-identical results:
// - Arith<T> says how an element is loaded into the type the arithmetic runs in and stored back
//   (float16 and bfloat16 go through float with the rounding of datatype.hpp);
// - Sum, Prod, Min, Max combine two loaded values; integer sum and product run in the unsigned
//   type so overflow wraps instead of being undefined behaviour;
// - with_type / with_op turn the run-time (type, op) into template arguments (avg combines as a
//   sum; the division by the number of ranks happens once, at the end).
#pragma once

#include <cstdint>
#include <type_traits>

#include "collectives/datatype.hpp"

namespace ringlab::reduce_ops {

template <typename T>
struct Arith {
  using type = T;
  RINGLAB_HOST_DEVICE static type load(T value) { return value; }
  RINGLAB_HOST_DEVICE static T store(type value) { return value; }
};
template <>
struct Arith<float16> {
  using type = float;
  RINGLAB_HOST_DEVICE static float load(float16 value) { return to_float(value); }
  RINGLAB_HOST_DEVICE static float16 store(float value) { return to_float16(value); }
};
template <>
struct Arith<bfloat16> {
  using type = float;
  RINGLAB_HOST_DEVICE static float load(bfloat16 value) { return to_float(value); }
  RINGLAB_HOST_DEVICE static bfloat16 store(float value) { return to_bfloat16(value); }
};

struct Sum {
  template <typename C>
  RINGLAB_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return a + b;
    }
  }
};
struct Prod {
  template <typename C>
  RINGLAB_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};
struct Min {
  template <typename C>
  RINGLAB_HOST_DEVICE C operator()(C a, C b) const { return a < b ? a : b; }
};
struct Max {
  template <typename C>
  RINGLAB_HOST_DEVICE C operator()(C a, C b) const { return a < b ? b : a; }
};

// One element of the average's final step: value / divisor in the arithmetic type.
template <typename T>
RINGLAB_HOST_DEVICE T divided(T value, int divisor) {
  using A = Arith<T>;
  using C = typename A::type;
  return A::store(static_cast<C>(A::load(value) / static_cast<C>(divisor)));
}

// Calls fn(T{}) with the element type named by `type` (T is only used as a tag).
template <typename Fn>
void with_type(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::float32: return fn(float{});
    case DataType::float64: return fn(double{});
    case DataType::float16: return fn(float16{});
    case DataType::bfloat16: return fn(bfloat16{});
    case DataType::int32: return fn(std::int32_t{});
    case DataType::int64: return fn(std::int64_t{});
  }
}

// Calls fn(Op{}) with the functor for `op`; avg combines as a sum.
template <typename Fn>
void with_op(ReduceOp op, Fn&& fn) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return fn(Sum{});
    case ReduceOp::prod: return fn(Prod{});
    case ReduceOp::min: return fn(Min{});
    case ReduceOp::max: return fn(Max{});
  }
}

}  // namespace ringlab::reduce_ops
