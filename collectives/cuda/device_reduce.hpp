// Device reduction kernels for every DataType x ReduceOp, the device twin of reduce.hpp. They
// run on a CUDA stream (asynchronous), take device pointers, and give bit-identical results to
// the CPU kernels (both use reduce_ops.hpp). Any count and alignment: 16-byte vector loads and
// stores where the three pointers share their alignment, scalar head and tail around them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "collectives/datatype.hpp"

namespace ringlab::cuda {

// out[i] = a[i] (op) b[i] for i < count; out may equal a (the in-place form). avg combines as a
// sum. Returns the launch status (cudaSuccess, or why the kernel did not start).
cudaError_t reduce_on_device(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op,
                             cudaStream_t stream);

// data[i] = data[i] / divisor, the last step of ReduceOp::avg (integer division for integers).
cudaError_t divide_on_device(void* data, std::size_t count, DataType type, int divisor, cudaStream_t stream);

}  // namespace ringlab::cuda
