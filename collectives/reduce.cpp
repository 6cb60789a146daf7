// CPU reduction kernels, vectorised with Google Highway and chosen at run time for the CPU they
// run on (HWY_DYNAMIC_DISPATCH): the file is compiled once per instruction set Highway targets
// (x86: EMU128, SSSE3, SSE4, AVX2, AVX3; Arm: NEON, SVE...) through hwy/foreach_target.h, and the
// first call picks the best one the CPU has.
//
// Results are bit-identical to the scalar reference (reduce_reference.hpp) on every target:
// - float32/float64/int32/int64: one vector op per lane, the same comparison for min/max as the
//   reference (`a < b ? a : b`, so NaN and signed zeros come out as there), wrapping integer sum
//   and product; int64 prod has no vector multiply in this Highway version, so it runs the
//   reference loop (it is memory-bound either way).
// - float16/bfloat16: widened to float32, combined in float32, narrowed with round-to-nearest-even
//   as datatype.hpp does. bfloat16 widens by a shift and narrows in integer arithmetic (Highway
//   1.0's narrowing truncates). float16 uses the F16C conversions on AVX2/AVX3 (round to nearest
//   even by the instruction's immediate) after NaN lanes are made the reference's quiet NaN;
//   targets without F16C convert in integer/float arithmetic that rounds as the reference does.
// - The last count % lanes elements go through the reference loop.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "reduce.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstdint>

#include "reduce.hpp"
#include "reduce_reference.hpp"

HWY_BEFORE_NAMESPACE();
namespace ringlab::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// How elements of a stored type load into the lanes the arithmetic runs in and store back.
// Plain<T>: the stored type is the arithmetic type.
template <typename T>
struct Plain {
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

struct BFloat16Codec {
  using Stored = bfloat16;
  using D = DF;
  static hn::Vec<D> load(D d, const Stored* p) {
    return hn::BitCast(d, hn::ShiftLeft<16>(load_halves(reinterpret_cast<const std::uint16_t*>(p))));
  }
  // Round to nearest even; NaN keeps its upper bits and is made quiet (datatype.hpp to_bfloat16).
  static void store(D, hn::Vec<D> v, Stored* p) {
    const DU32 du;
    const auto wide = hn::BitCast(du, v);
    const auto upper = hn::ShiftRight<16>(wide);
    const auto rounded = hn::ShiftRight<16>(wide + hn::Set(du, 0x7fffU) + (upper & hn::Set(du, 1U)));
    const auto quiet_nan = upper | hn::Set(du, 0x40U);
    const auto is_nan = hn::RebindMask(du, hn::IsNaN(v));
    store_halves(hn::IfThenElse(is_nan, quiet_nan, rounded), reinterpret_cast<std::uint16_t*>(p));
  }
};

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
  result = hn::IfThenElse(magnitude > hn::Set(di, 0x7f800000), hn::Set(di, 0x7e00), result);  // NaN
  return sign | hn::BitCast(du, result);
}

struct Float16Codec {
  using Stored = float16;
  using D = DF;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2  // F16C
  static hn::Vec<D> load(D d, const Stored* p) {
    const hn::Rebind<hwy::float16_t, D> dh;
    return hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  // The instruction keeps a NaN's payload; the reference writes sign | 0x7e00, which is what the
  // instruction makes of the float NaN sign | 0x7fc00000.
  static void store(D d, hn::Vec<D> v, Stored* p) {
    const DU32 du;
    const auto sign = hn::BitCast(du, v) & hn::Set(du, 0x80000000U);
    const auto quiet_nan = hn::BitCast(d, sign | hn::Set(du, 0x7fc00000U));
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, hn::IfThenElse(hn::IsNaN(v), quiet_nan, v)), dh, reinterpret_cast<hwy::float16_t*>(p));
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
struct ProdOp {
  template <class V>
  V operator()(V a, V b) const { return a * b; }
};
struct MinOp {
  template <class V>
  V operator()(V a, V b) const { return hn::IfThenElse(a < b, a, b); }
};
struct MaxOp {
  template <class V>
  V operator()(V a, V b) const { return hn::IfThenElse(a < b, b, a); }
};

template <class Codec, class Op>
void reduce_into_loop(void* inout_bytes, const void* in_bytes, std::size_t count, DataType type, ReduceOp op_name) {
  using Stored = typename Codec::Stored;
  auto* inout = static_cast<Stored*>(inout_bytes);
  const auto* in = static_cast<const Stored*>(in_bytes);
  const typename Codec::D d;
  const std::size_t lanes = hn::Lanes(d);
  const Op op;
  std::size_t i = 0;
  for (; i + lanes <= count; i += lanes) Codec::store(d, op(Codec::load(d, inout + i), Codec::load(d, in + i)), inout + i);
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
  const std::size_t lanes = hn::Lanes(d);
  const Op op;
  std::size_t i = 0;
  for (; i + lanes <= count; i += lanes) Codec::store(d, op(Codec::load(d, a + i), Codec::load(d, b + i)), out + i);
  reference::reduce_to(out + i, a + i, b + i, count - i, type, op_name);
}

template <class Codec>
void divide_loop(void* data_bytes, std::size_t count, DataType type, int divisor) {
  using Stored = typename Codec::Stored;
  auto* data = static_cast<Stored*>(data_bytes);
  const typename Codec::D d;
  const std::size_t lanes = hn::Lanes(d);
  const auto by = hn::Set(d, static_cast<hn::TFromD<decltype(d)>>(divisor));
  std::size_t i = 0;
  for (; i + lanes <= count; i += lanes) Codec::store(d, Codec::load(d, data + i) / by, data + i);
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
    case DataType::int64: return op != ReduceOp::prod && with_op(Plain<std::int64_t>{});
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
