// CPU reduction kernels. One template loop per (element type, op) over restrict pointers so GCC
// vectorises it at -O3; the (type, op) switch sits outside the loop. float16/bfloat16 are
// converted to float per element. Integer sum/prod run in the unsigned type so overflow wraps
// instead of being undefined behaviour.
#include "reduce.hpp"

#include <cstdint>
#include <type_traits>

namespace ringlab {
namespace {

// How an element is loaded into, and stored from, the type the arithmetic runs in.
template <typename T>
struct Arith {
  using type = T;
  static type load(T value) { return value; }
  static T store(type value) { return value; }
};
template <>
struct Arith<float16> {
  using type = float;
  static float load(float16 value) { return to_float(value); }
  static float16 store(float value) { return to_float16(value); }
};
template <>
struct Arith<bfloat16> {
  using type = float;
  static float load(bfloat16 value) { return to_float(value); }
  static bfloat16 store(float value) { return to_bfloat16(value); }
};

struct Sum {
  template <typename C>
  C operator()(C a, C b) const {
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
  C operator()(C a, C b) const {
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
  C operator()(C a, C b) const { return a < b ? a : b; }
};
struct Max {
  template <typename C>
  C operator()(C a, C b) const { return a < b ? b : a; }
};

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
  using A = Arith<T>;
  using C = typename A::type;
  const auto d = static_cast<C>(divisor);
  for (std::size_t i = 0; i < count; ++i) data[i] = A::store(static_cast<C>(A::load(data[i]) / d));
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

}  // namespace ringlab
