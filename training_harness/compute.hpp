// The compute interface: the layers call it for every heavy or device-worthy kernel (GEMM,
// convolution forward and both backward passes, 2x2 max-pool and ReLU, forward and backward), so
// that the CPU reference (OpenBLAS, im2col + GEMM, loops) and the GPU backend (cuDNN, cuBLAS) sit
// behind one interface and can be checked against each other (docs/training.md, "Compute
// backends"). Every pointer is host memory: the GPU backend stages its operands to the device and
// back per call. Bias, loss, SGD and the hybrid head's ReLU mask stay host loops in the layers.
//
// A Compute keeps scratch space (im2col columns; device buffers, handles and descriptors), so it
// is not thread-safe: make one per rank (thread). Its methods are const because the scratch never
// changes a result.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "training_harness/tensor.hpp"

namespace ringlab::training {

enum class Transpose { no, yes };

// One image's convolution geometry: stride 1, zero padding on every side.
struct ConvGeometry {
  int channels = 0;
  int height = 0;
  int width = 0;
  int kernel = 3;
  int padding = 1;  // stride is 1
  int out_height() const { return height + 2 * padding - kernel + 1; }
  int out_width() const { return width + 2 * padding - kernel + 1; }
};

// A whole convolution call: `batch` images [channels, height, width] (NCHW), weights
// [out_channels, channels, kernel, kernel], output [batch, out_channels, out_height, out_width].
struct ConvProblem {
  ConvGeometry geometry;
  int batch = 0;
  int out_channels = 0;
  std::size_t input_elements() const;
  std::size_t weight_elements() const;
  std::size_t output_elements() const;
};

class Compute {
 public:
  virtual ~Compute() = default;
  virtual std::string name() const = 0;
  // Row-major C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C.
  virtual void gemm(Transpose transpose_a, Transpose transpose_b, int m, int n, int k, float alpha, const float* a,
                    const float* b, float beta, float* c) const = 0;
  // output = conv(input, weight) (cross-correlation, as every framework's "convolution").
  virtual void conv_forward(const ConvProblem& problem, const float* input, const float* weight,
                            float* output) const = 0;
  // grad_weight = sum over the batch of the weight gradient (overwritten; zero for an empty batch).
  virtual void conv_backward_filter(const ConvProblem& problem, const float* input, const float* grad_output,
                                    float* grad_weight) const = 0;
  // grad_input = the input gradient (overwritten).
  virtual void conv_backward_data(const ConvProblem& problem, const float* weight, const float* grad_output,
                                  float* grad_input) const = 0;
  // y = max(x, 0) over `count` elements.
  virtual void relu_forward(std::size_t count, const float* input, float* output) const = 0;
  // dx = dy where y > 0, else 0.
  virtual void relu_backward(std::size_t count, const float* output, const float* grad_output,
                             float* grad_input) const = 0;
  // 2x2 windows, stride 2, odd edges dropped: output [n, c, h/2, w/2] from input `shape`.
  virtual void max_pool_forward(const Shape& shape, const float* input, float* output) const = 0;
  // Routes each window's dy to the window's maximum (the first one in row order on ties); the
  // dropped edges get 0. grad_input has `shape`.
  virtual void max_pool_backward(const Shape& shape, const float* input, const float* output,
                                 const float* grad_output, float* grad_input) const = 0;
};

// The CPU reference: OpenBLAS cblas_sgemm and plain loops.
std::unique_ptr<Compute> make_cpu_compute();

// Sets OpenBLAS to one thread per process; ranks are the parallelism (call once at start).
void use_single_blas_thread();

}  // namespace ringlab::training
