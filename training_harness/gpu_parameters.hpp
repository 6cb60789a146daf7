// What the GPU compute backend hands cuDNN and cuBLAS, as pure functions of the CPU-side shapes,
// so they are unit-tested without a GPU (and built without CUDA):
//   column_major_gemm  a row-major C = op(A) op(B) as cuBLAS's column-major call: C^T = op(B)^T
//                      op(A)^T, i.e. the operands swapped, m and n swapped, the same transposes
//                      and leading dimensions;
//   conv_descriptors   NCHW input, KCRS filter, padding, stride 1, dilation 1 and the output;
//   pool_descriptors   2x2 window, stride 2, no padding (floor: odd edges dropped);
//   grown_capacity     device buffers grow on demand, never shrink, at least 1.5x at a time;
//   *_staging          the bytes a call copies host -> device and device -> host (the backend
//                      stages every operand per call: docs/training.md, "Compute backends").
#pragma once

#include <array>
#include <cstddef>

#include "training_harness/compute.hpp"

namespace ringlab::training {

// cublasSgemm(handle, first_op, second_op, rows, cols, inner, alpha, first, ld_first, second,
//             ld_second, beta, c, ld_result) computes the row-major product. first is B, second A.
struct ColumnMajorGemm {
  Transpose first_op = Transpose::no;   // applied to B
  Transpose second_op = Transpose::no;  // applied to A
  int rows = 0;                         // n
  int cols = 0;                         // m
  int inner = 0;                        // k
  int ld_first = 0;                     // B's row-major row length
  int ld_second = 0;                    // A's row-major row length
  int ld_result = 0;                    // n
};
ColumnMajorGemm column_major_gemm(Transpose transpose_a, Transpose transpose_b, int m, int n, int k);

struct ConvDescriptors {
  std::array<int, 4> input{};   // n, c, h, w
  std::array<int, 4> filter{};  // k (out channels), c, r, s
  std::array<int, 4> output{};  // n, k, p, q
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
};
ConvDescriptors conv_descriptors(const ConvProblem& problem);

struct PoolDescriptors {
  std::array<int, 4> input{};   // n, c, h, w
  std::array<int, 4> output{};  // n, c, h / 2, w / 2
  int window = 2, stride = 2, padding = 0;
};
PoolDescriptors pool_descriptors(const Shape& input);

// Elements to allocate when `needed` do not fit in `current`: max(needed, current * 3 / 2);
// `current` when they fit.
std::size_t grown_capacity(std::size_t current, std::size_t needed);

struct StagedBytes {
  std::size_t to_device = 0;
  std::size_t to_host = 0;
};
StagedBytes conv_forward_staging(const ConvProblem& problem);           // x, W up; y down
StagedBytes conv_backward_filter_staging(const ConvProblem& problem);   // x, dy up; dW down
StagedBytes conv_backward_data_staging(const ConvProblem& problem);     // W, dy up; dx down
StagedBytes gemm_staging(int m, int n, int k, bool reads_c);            // A, B (, C) up; C down

}  // namespace ringlab::training
