// CPU reduction kernels for every DataType x ReduceOp, vectorised with Google Highway and
// dispatched at run time to the best instruction set the CPU has (reduce.cpp); bit-identical to
// the scalar reference (reduce_reference.hpp) and to the CUDA kernels on every target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/datatype.hpp"

namespace ringlab {

// inout[i] = inout[i] (op) in[i] for i < count. ReduceOp::avg combines as a sum; the division
// by the number of ranks happens once, at the end, in divide_elements().
void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op);

// out[i] = a[i] (op) b[i] (out-of-place form: 2 reads + 1 write per element).
void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op);

// data[i] = data[i] / divisor (integer division for integer types), used to finish ReduceOp::avg.
void divide_elements(void* data, std::size_t count, DataType type, int divisor);

// An instruction set the kernels were compiled for, by Highway's name ("AVX3", "AVX2", "SSE4",
// "SSSE3", "EMU128", "NEON", ...) and target bit.
struct ReduceKernelTarget {
  std::int64_t bit = 0;
  std::string name;
};

// The targets this CPU can run, best first; the kernels run on the first.
std::vector<ReduceKernelTarget> reduce_kernel_targets();
// The name of the target the kernels run on now.
std::string reduce_kernel_target();

// For tests and benchmarks: while alive, every kernel call in the process runs on `target`
// (one of reduce_kernel_targets()). Not for use while other threads call the kernels.
class ForcedReduceTarget {
 public:
  explicit ForcedReduceTarget(const ReduceKernelTarget& target);
  ~ForcedReduceTarget();
  ForcedReduceTarget(const ForcedReduceTarget&) = delete;
  ForcedReduceTarget& operator=(const ForcedReduceTarget&) = delete;
};

}  // namespace ringlab
