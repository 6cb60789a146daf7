// CPU reduction kernels, vectorised with Google Highway and chosen at run time for the CPU they
// run on (HWY_DYNAMIC_DISPATCH): the file is compiled once per instruction set Highway targets
// (x86 with Debian's Highway 1.0.3: SCALAR, SSSE3, SSE4, AVX2, AVX3; Arm: NEON, SVE...) through
// hwy/foreach_target.h, and the first call picks the best one the CPU has. Each loop prefetches
// its operands 2 KiB ahead (prefetch_ahead).
//
// Results are bit-identical to the scalar reference (reduce_reference.hpp) on every target:
// - float32/float64/int32/int64: one vector op per lane, the same comparison for min/max as the
//   reference (`a < b ? a : b`, so NaN and signed zeros come out as there), wrapping integer sum
//   and product; int64 prod (no 64-bit vector multiply in this Highway version) from three
//   32 x 32 -> 64-bit multiplies, and the reference loop on the scalar target.
// - float16/bfloat16: widened to float32, combined in float32, narrowed with round-to-nearest-even
//   as datatype.hpp does. bfloat16 widens by a shift and narrows in integer arithmetic (Highway
//   1.0's narrowing truncates). float16 uses the F16C conversions on AVX2/AVX3 (round to nearest
//   even by the instruction's immediate; a NaN made quiet with its payload's upper bits, as the
//   reference does); targets without F16C convert in integer/float arithmetic that rounds as the
//   reference does.
// - bfloat16 reads a full vector of elements as 32-bit lanes and splits even and odd elements
//   into two float vectors by a shift and a mask (no shuffles; results go back the same way).
// - The last count % (elements per step) elements go through the reference loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "collectives/reduce.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <bit>
#include <cstdint>
#include <type_traits>

#include "collectives/reduce.hpp"
#include "collectives/reduce_reference.hpp"

HWY_BEFORE_NAMESPACE();
namespace ringlab::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A codec says how elements of a stored type load into the lanes the arithmetic runs in and store
// back: it loads step(d) elements into a value (one vector, or two for BFloat16Codec), stores one
// back, and applies a lane-wise function to two values with map2. Plain<T>: the stored type is
// the arithmetic type.
struct OneVector {
  template <class D>
  static std::size_t step(D d) { return hn::Lanes(d); }
  template <class F, class V>
  static V map2(const F& f, V a, V b) { return f(a, b); }
};

template <typename T>
struct Plain : OneVector {
  using Stored = T;
  using D = hn::ScalableTag<T>;
  static hn::Vec<D> load(D d, const Stored* p) { return hn::LoadU(d, p); }
  static void store(D d, hn::Vec<D> v, Stored* p) { hn::StoreU(v, d, p); }
};

using DF = hn::ScalableTag<float>;
using DU32 = hn::RebindToUnsigned<DF>;
using DI32 = hn::RebindToSigned<DF>;
using DU16 = hn::Rebind<std::uint16_t, DF>;  // half-width: as many lanes as DF

inline hn::Vec<DU32> load_halves(const std::uint16_t* p) { return hn::PromoteTo(DU32(), hn::LoadU(DU16(), p)); }
// u32 lanes that hold 16-bit values (0..0xffff) stored as 16-bit elements.
inline void store_halves(hn::Vec<DU32> bits, std::uint16_t* p) {
  hn::StoreU(hn::DemoteTo(DU16(), hn::BitCast(DI32(), bits)), DU16(), p);
}

// float32 lanes rounded to bfloat16, to nearest even, the 16 result bits in the upper half of
// each lane (the lower half is garbage); NaN keeps its upper bits and is made quiet
// (datatype.hpp to_bfloat16).
inline hn::Vec<DU32> round_to_bfloat16_upper(hn::Vec<DF> v) {
  const DU32 du;
  const auto wide = hn::BitCast(du, v);
  const auto odd = hn::ShiftRight<16>(wide) & hn::Set(du, 1U);
  const auto rounded = wide + hn::Set(du, 0x7fffU) + odd;
  const auto quiet_nan = wide | hn::Set(du, 0x400000U);
  return hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), quiet_nan, rounded);
}

#if HWY_TARGET == HWY_SCALAR
// One element per vector: widened and narrowed one at a time.
struct BFloat16Codec : OneVector {
  using Stored = bfloat16;
  using D = DF;
  static hn::Vec<D> load(D d, const Stored* p) {
    return hn::BitCast(d, hn::ShiftLeft<16>(load_halves(reinterpret_cast<const std::uint16_t*>(p))));
  }
  static void store(D, hn::Vec<D> v, Stored* p) {
    store_halves(hn::ShiftRight<16>(round_to_bfloat16_upper(v)), reinterpret_cast<std::uint16_t*>(p));
  }
};
#else
// A full vector of bfloat16 read as 32-bit lanes holds the even elements in the lower halves and
// the odd ones in the upper halves (little-endian): shifting the lower half up, or clearing it,
// gives two float vectors without a shuffle, and the results go back the same way.
struct BFloat16Codec {
  using Stored = bfloat16;
  using D = DF;
  struct Value {
    hn::Vec<DF> even, odd;
  };
  static std::size_t step(D d) { return 2 * hn::Lanes(d); }
  static Value load(D d, const Stored* p) {
    const DU32 du;
    const auto pairs = hn::LoadU(du, reinterpret_cast<const std::uint32_t*>(p));
    return {hn::BitCast(d, hn::ShiftLeft<16>(pairs)), hn::BitCast(d, pairs & hn::Set(du, 0xffff0000U))};
  }
  static void store(D, Value v, Stored* p) {
    const DU32 du;
    const auto even = hn::ShiftRight<16>(round_to_bfloat16_upper(v.even));
    const auto odd = round_to_bfloat16_upper(v.odd) & hn::Set(du, 0xffff0000U);
    hn::StoreU(even | odd, du, reinterpret_cast<std::uint32_t*>(p));
  }
  template <class F>
  static Value map2(const F& f, Value a, Value b) { return {f(a.even, b.even), f(a.odd, b.odd)}; }
};
static_assert(std::endian::native == std::endian::little, "BFloat16Codec reads element pairs as little-endian 32-bit lanes");
#endif

// float16 <-> float32 in integer and float arithmetic, exactly as datatype.hpp rounds.
inline hn::Vec<DF> widen_float16_exact(hn::Vec<DU32> bits) {
  const DF df;
  const DU32 du;
  const DI32 di;
  const auto sign = hn::ShiftLeft<16>(bits & hn::Set(du, 0x8000U));
  const auto magnitude = bits & hn::Set(du, 0x7fffU);
  // Normal and subnormal: the bits shifted into a float's place are the value times 2^-112
  // (a subnormal float for float16 subnormals); multiplying by 2^112 is exact.
  const auto scaled = hn::BitCast(df, hn::ShiftLeft<13>(magnitude)) * hn::BitCast(df, hn::Set(du, 0x77800000U));
  const auto inf_or_nan = hn::ShiftLeft<13>(magnitude) | hn::Set(du, 0x7f800000U);
  const auto is_special = hn::RebindMask(du, hn::BitCast(di, magnitude) > hn::Set(di, 0x7bff));
  return hn::BitCast(df, sign | hn::IfThenElse(is_special, inf_or_nan, hn::BitCast(du, scaled)));
}

inline hn::Vec<DU32> narrow_float16_exact(hn::Vec<DF> v) {
  const DF df;
  const DU32 du;
  const DI32 di;
  const auto wide = hn::BitCast(du, v);
  const auto sign = hn::ShiftRight<16>(wide & hn::Set(du, 0x80000000U));
  const auto magnitude = hn::BitCast(di, wide & hn::Set(du, 0x7fffffffU));
  // Normal result: rebias the exponent, round the low 13 bits to even (a carry may bump it).
  const auto rebiased = magnitude - hn::Set(di, 112 << 23);
  const auto odd = hn::ShiftRight<13>(rebiased) & hn::Set(di, 1);
  const auto normal = hn::ShiftRight<13>(rebiased + hn::Set(di, 0xfff) + odd);
  // Subnormal or zero result: adding 0.5 leaves the value rounded to a multiple of 2^-24 (the
  // float16 subnormal step) in the low mantissa bits, with round-to-nearest-even.
  const auto half = hn::Set(df, 0.5f);
  const auto small = hn::BitCast(di, hn::BitCast(df, magnitude) + half) - hn::BitCast(di, half);
  auto result = hn::IfThenElse(magnitude < hn::Set(di, 0x38800000), small, normal);
  result = hn::IfThenElse(magnitude > hn::Set(di, 0x477fefff), hn::Set(di, 0x7c00), result);  // -> inf
  const auto quiet_nan = hn::Set(di, 0x7e00) | (hn::ShiftRight<13>(magnitude) & hn::Set(di, 0x1ff));
  result = hn::IfThenElse(magnitude > hn::Set(di, 0x7f800000), quiet_nan, result);  // NaN keeps its payload
  return sign | hn::BitCast(du, result);
}

struct Float16Codec : OneVector {
  using Stored = float16;
  using D = DF;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // F16C
  static hn::Vec<D> load(D d, const Stored* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  // The instruction makes a NaN quiet and keeps its payload's upper bits, as the reference does.
  static void store(D, hn::Vec<D> v, Stored* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(p));
  }
#else
  static hn::Vec<D> load(D, const Stored* p) {
    return widen_float16_exact(load_halves(reinterpret_cast<const std::uint16_t*>(p)));
  }
  static void store(D, hn::Vec<D> v, Stored* p) {
    store_halves(narrow_float16_exact(v), reinterpret_cast<std::uint16_t*>(p));
  }
#endif
};

struct SumOp {
  template <class V>
  V operator()(V a, V b) const { return a + b; }  // integer lanes wrap
};
#if HWY_TARGET != HWY_SCALAR
// The low 64 bits of a * b per lane (wrapping, as the reference's unsigned product) from three
// 32 x 32 -> 64-bit multiplies: a.lo*b.lo + ((a.hi*b.lo + a.lo*b.hi) << 32).
template <class V>
V multiply_low_64(V a, V b) {
  const hn::DFromV<V> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::Repartition<std::uint32_t, decltype(d)> du32;
  const auto au = hn::BitCast(du, a);
  const auto bu = hn::BitCast(du, b);
  const auto low = hn::MulEven(hn::BitCast(du32, au), hn::BitCast(du32, bu));
  const auto cross = hn::MulEven(hn::BitCast(du32, hn::ShiftRight<32>(au)), hn::BitCast(du32, bu)) +
                     hn::MulEven(hn::BitCast(du32, au), hn::BitCast(du32, hn::ShiftRight<32>(bu)));
  return hn::BitCast(d, low + hn::ShiftLeft<32>(cross));
}
inline constexpr bool vector_int64_product = true;
#else
inline constexpr bool vector_int64_product = false;
#endif

struct ProdOp {
  template <class V>
  V operator()(V a, V b) const {
#if HWY_TARGET != HWY_SCALAR
    if constexpr (std::is_same_v<hn::TFromV<V>, std::int64_t>) return multiply_low_64(a, b);
#endif
    return a * b;
  }
};
struct MinOp {
  template <class V>
  V operator()(V a, V b) const { return hn::IfThenElse(a < b, a, b); }
};
struct MaxOp {
  template <class V>
  V operator()(V a, V b) const { return hn::IfThenElse(a < b, b, a); }
};

// Asks for the operands' cache lines 2 KiB ahead. The hardware prefetchers alone leave the
// float16/bfloat16 loops, which compute more per byte, well below float32's bytes per second out
// of cache; with this they run at memory speed (docs/reduce-kernels.md).
// A prefetch past the end of an array never faults; the address is formed as an integer so no
// pointer leaves its array.
inline void prefetch_ahead(const void* first, const void* second) {
  constexpr std::uintptr_t ahead = 2048;
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(first) + ahead));
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(second) + ahead));
}

template <class Codec, class Op>
void reduce_into_loop(void* inout_bytes, const void* in_bytes, std::size_t count, DataType type, ReduceOp op_name) {
  using Stored = typename Codec::Stored;
  auto* inout = static_cast<Stored*>(inout_bytes);
  const auto* in = static_cast<const Stored*>(in_bytes);
  const typename Codec::D d;
  const std::size_t step = Codec::step(d);
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    prefetch_ahead(inout + i, in + i);
    Codec::store(d, Codec::map2(Op{}, Codec::load(d, inout + i), Codec::load(d, in + i)), inout + i);
  }
  reference::reduce_into(inout + i, in + i, count - i, type, op_name);
}

template <class Codec, class Op>
void reduce_to_loop(void* out_bytes, const void* a_bytes, const void* b_bytes, std::size_t count, DataType type,
                    ReduceOp op_name) {
  using Stored = typename Codec::Stored;
  auto* out = static_cast<Stored*>(out_bytes);
  const auto* a = static_cast<const Stored*>(a_bytes);
  const auto* b = static_cast<const Stored*>(b_bytes);
  const typename Codec::D d;
  const std::size_t step = Codec::step(d);
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    prefetch_ahead(a + i, b + i);
    Codec::store(d, Codec::map2(Op{}, Codec::load(d, a + i), Codec::load(d, b + i)), out + i);
  }
  reference::reduce_to(out + i, a + i, b + i, count - i, type, op_name);
}

template <class Codec>
void divide_loop(void* data_bytes, std::size_t count, DataType type, int divisor) {
  using Stored = typename Codec::Stored;
  auto* data = static_cast<Stored*>(data_bytes);
  const typename Codec::D d;
  const std::size_t step = Codec::step(d);
  const auto by = hn::Set(d, static_cast<hn::TFromD<decltype(d)>>(divisor));
  const auto divide = [by](auto value, auto) { return value / by; };
  std::size_t i = 0;
  for (; i + step <= count; i += step) {
    prefetch_ahead(data + i, data + i);
    const auto value = Codec::load(d, data + i);
    Codec::store(d, Codec::map2(divide, value, value), data + i);
  }
  reference::divide_elements(data + i, count - i, type, divisor);
}

// Calls fn.template operator()<Codec, Op>() for the (type, op); false for int64 prod.
template <class Fn>
bool with_codec_and_op(DataType type, ReduceOp op, Fn&& fn) {
  auto with_op = [&](auto codec_tag) {
    using Codec = decltype(codec_tag);
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg: fn.template operator()<Codec, SumOp>(); return true;
      case ReduceOp::prod: fn.template operator()<Codec, ProdOp>(); return true;
      case ReduceOp::min: fn.template operator()<Codec, MinOp>(); return true;
      case ReduceOp::max: fn.template operator()<Codec, MaxOp>(); return true;
    }
    return false;
  };
  switch (type) {
    case DataType::float32: return with_op(Plain<float>{});
    case DataType::float64: return with_op(Plain<double>{});
    case DataType::float16: return with_op(Float16Codec{});
    case DataType::bfloat16: return with_op(BFloat16Codec{});
    case DataType::int32: return with_op(Plain<std::int32_t>{});
    case DataType::int64: return (op != ReduceOp::prod || vector_int64_product) && with_op(Plain<std::int64_t>{});
  }
  return false;
}

void ReduceInto(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  const bool done = with_codec_and_op(type, op, [&]<class Codec, class Op>() {
    reduce_into_loop<Codec, Op>(inout, in, count, type, op);
  });
  if (!done) reference::reduce_into(inout, in, count, type, op);
}

void ReduceTo(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) {
  const bool done = with_codec_and_op(type, op, [&]<class Codec, class Op>() {
    reduce_to_loop<Codec, Op>(out, a, b, count, type, op);
  });
  if (!done) reference::reduce_to(out, a, b, count, type, op);
}

void DivideElements(void* data, std::size_t count, DataType type, int divisor) {
  switch (type) {
    case DataType::float32: return divide_loop<Plain<float>>(data, count, type, divisor);
    case DataType::float64: return divide_loop<Plain<double>>(data, count, type, divisor);
    case DataType::float16: return divide_loop<Float16Codec>(data, count, type, divisor);
    case DataType::bfloat16: return divide_loop<BFloat16Codec>(data, count, type, divisor);
    case DataType::int32:
    case DataType::int64: return reference::divide_elements(data, count, type, divisor);  // no vector divide
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace ringlab::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ringlab {
namespace simd {
HWY_EXPORT(ReduceInto);
HWY_EXPORT(ReduceTo);
HWY_EXPORT(DivideElements);
}  // namespace simd

void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) {
  HWY_DYNAMIC_DISPATCH(simd::ReduceInto)(inout, in, count, type, op);
}

void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) {
  HWY_DYNAMIC_DISPATCH(simd::ReduceTo)(out, a, b, count, type, op);
}

void divide_elements(void* data, std::size_t count, DataType type, int divisor) {
  HWY_DYNAMIC_DISPATCH(simd::DivideElements)(data, count, type, divisor);
}

std::vector<ReduceKernelTarget> reduce_kernel_targets() {
  std::vector<ReduceKernelTarget> targets;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) targets.push_back({target, hwy::TargetName(target)});
  return targets;
}

std::string reduce_kernel_target() {
  const auto targets = reduce_kernel_targets();
  return targets.empty() ? std::string("none") : targets.front().name;
}

ForcedReduceTarget::ForcedReduceTarget(const ReduceKernelTarget& target) {
  hwy::SetSupportedTargetsForTest(target.bit);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

ForcedReduceTarget::~ForcedReduceTarget() {
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

}  // namespace ringlab
#endif  // HWY_ONCE
