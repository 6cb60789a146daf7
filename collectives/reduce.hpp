// CPU reduction kernels for every DataType x ReduceOp. Plain loops over restrict pointers that
// GCC and Clang vectorise at -O2/-O3; float16/bfloat16 go through float.
#pragma once

#include <cstddef>

#include "datatype.hpp"

namespace ringlab {

// inout[i] = inout[i] (op) in[i] for i < count. ReduceOp::avg combines as a sum; the division
// by the number of ranks happens once, at the end, in divide_elements().
void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op);

// out[i] = a[i] (op) b[i] (out-of-place form: 2 reads + 1 write per element).
void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op);

// data[i] = data[i] / divisor (integer division for integer types), used to finish ReduceOp::avg.
void divide_elements(void* data, std::size_t count, DataType type, int divisor);

}  // namespace ringlab
