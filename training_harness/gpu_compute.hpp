// The GPU compute backend (built with CUDA, cuDNN and cuBLAS): the Compute interface on one CUDA
// device. Correctness first: every call copies its operands from host memory to the device,
// runs one library call, copies the result back and waits for it (docs/training.md, "Compute
// backends", gives the bytes this stages and what it costs). Steps of one call:
//   gemm                  cublasSgemm on the column-major view (gpu_parameters.hpp)
//   conv_forward          cudnnConvolutionForward, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM
//   conv_backward_filter  cudnnConvolutionBackwardFilter, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1
//   conv_backward_data    cudnnConvolutionBackwardData, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1
//   relu_*                cudnnActivationForward / Backward, CUDNN_ACTIVATION_RELU
//   max_pool_*            cudnnPoolingForward / Backward, CUDNN_POOLING_MAX_DETERMINISTIC, 2x2/2
// The three convolution algorithms are fixed, deterministic ones (no atomics: the same inputs give
// the same bits every run) and run in CUDNN_FMA_MATH (plain float32 FMA, no TF32 tensor cores);
// cuBLAS runs in CUBLAS_DEFAULT_MATH, also without TF32. The handles, the stream, the descriptors
// and the device buffers are made once per Compute and reused; buffers grow on demand.
#pragma once

#include <memory>

#include "training_harness/compute.hpp"

namespace ringlab::training {

// Throws cuda::CudaError (naming the device and the call) when the device cannot be used.
std::unique_ptr<Compute> make_gpu_compute(int device);

}  // namespace ringlab::training
