#include "training_harness/gpu_parameters.hpp"

#include <algorithm>

namespace ringlab::training {

ColumnMajorGemm column_major_gemm(Transpose transpose_a, Transpose transpose_b, int m, int n, int k) {
  ColumnMajorGemm call;
  call.first_op = transpose_b;
  call.second_op = transpose_a;
  call.rows = n;
  call.cols = m;
  call.inner = k;
  call.ld_first = transpose_b == Transpose::yes ? k : n;
  call.ld_second = transpose_a == Transpose::yes ? m : k;
  call.ld_result = n;
  return call;
}

ConvDescriptors conv_descriptors(const ConvProblem& p) {
  const ConvGeometry& g = p.geometry;
  ConvDescriptors d;
  d.input = {p.batch, g.channels, g.height, g.width};
  d.filter = {p.out_channels, g.channels, g.kernel, g.kernel};
  d.output = {p.batch, p.out_channels, g.out_height(), g.out_width()};
  d.pad_h = d.pad_w = g.padding;
  return d;
}

PoolDescriptors pool_descriptors(const Shape& input) {
  PoolDescriptors d;
  d.input = {input.n, input.c, input.h, input.w};
  d.output = {input.n, input.c, input.h / 2, input.w / 2};
  return d;
}

std::size_t grown_capacity(std::size_t current, std::size_t needed) {
  if (needed <= current) return current;
  return std::max(needed, current + current / 2);
}

namespace {
constexpr std::size_t float_bytes = sizeof(float);
}

StagedBytes conv_forward_staging(const ConvProblem& p) {
  return {(p.input_elements() + p.weight_elements()) * float_bytes, p.output_elements() * float_bytes};
}

StagedBytes conv_backward_filter_staging(const ConvProblem& p) {
  return {(p.input_elements() + p.output_elements()) * float_bytes, p.weight_elements() * float_bytes};
}

StagedBytes conv_backward_data_staging(const ConvProblem& p) {
  return {(p.weight_elements() + p.output_elements()) * float_bytes, p.input_elements() * float_bytes};
}

StagedBytes gemm_staging(int m, int n, int k, bool reads_c) {
  const auto mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n), kk = static_cast<std::size_t>(k);
  return {(mm * kk + kk * nn + (reads_c ? mm * nn : 0)) * float_bytes, mm * nn * float_bytes};
}

}  // namespace ringlab::training
