// The scalar reference reduction kernels: one plain loop per (element type, op) with the
// arithmetic of reduce_ops.hpp (float16/bfloat16 through float with round-to-nearest-even,
// wrapping integer sum/prod), the same arithmetic the CUDA kernels use. The SIMD kernels
// (reduce_simd.cpp) must give bit-identical results; they call these for the tail of an array
// and for int64 prod, which has no vector multiply on most targets.
#pragma once

#include <cstddef>

#include "collectives/datatype.hpp"

namespace ringlab::reference {

void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op);
void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op);
void divide_elements(void* data, std::size_t count, DataType type, int divisor);

}  // namespace ringlab::reference
