// CPU reference compute: GEMM through OpenBLAS; convolution as im2col + GEMM per image (stride 1,
// zero padding):
//   forward          cols = im2col(x_n); y_n = W[cout, cin*k*k] * cols
//   backward filter  dW = sum_n dy_n * im2col(x_n)^T (accumulated in GEMM, image by image)
//   backward data    dcols = W^T * dy_n; dx_n = col2im(dcols) (the adjoint of im2col)
// ReLU and the 2x2 max-pool are loops; the pool's backward finds each window's maximum again from
// the input (first in row order on ties) rather than keeping indices from forward.
#include <cblas.h>

#include <algorithm>
#include <vector>

#include "training_harness/compute.hpp"

namespace ringlab::training {

std::size_t ConvProblem::input_elements() const {
  return static_cast<std::size_t>(batch) * static_cast<std::size_t>(geometry.channels) *
         static_cast<std::size_t>(geometry.height) * static_cast<std::size_t>(geometry.width);
}

std::size_t ConvProblem::weight_elements() const {
  return static_cast<std::size_t>(out_channels) * static_cast<std::size_t>(geometry.channels) *
         static_cast<std::size_t>(geometry.kernel * geometry.kernel);
}

std::size_t ConvProblem::output_elements() const {
  return static_cast<std::size_t>(batch) * static_cast<std::size_t>(out_channels) *
         static_cast<std::size_t>(geometry.out_height()) * static_cast<std::size_t>(geometry.out_width());
}

namespace {

CBLAS_TRANSPOSE to_cblas(Transpose transpose) { return transpose == Transpose::yes ? CblasTrans : CblasNoTrans; }

// One image [channels, height, width] -> columns [channels*kernel*kernel, out_height*out_width].
void im2col(const ConvGeometry& g, const float* image, float* columns) {
  const int oh = g.out_height();
  const int ow = g.out_width();
  for (int ch = 0; ch < g.channels; ++ch)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx) {
        float* row = columns + ((ch * g.kernel + ky) * g.kernel + kx) * oh * ow;
        for (int y = 0; y < oh; ++y) {
          const int iy = y + ky - g.padding;
          for (int x = 0; x < ow; ++x) {
            const int ix = x + kx - g.padding;
            const bool inside = iy >= 0 && iy < g.height && ix >= 0 && ix < g.width;
            row[y * ow + x] = inside ? image[(ch * g.height + iy) * g.width + ix] : 0.0f;
          }
        }
      }
}

// The adjoint: adds the columns back onto the image (which the caller zeroes first).
void col2im(const ConvGeometry& g, const float* columns, float* image) {
  const int oh = g.out_height();
  const int ow = g.out_width();
  for (int ch = 0; ch < g.channels; ++ch)
    for (int ky = 0; ky < g.kernel; ++ky)
      for (int kx = 0; kx < g.kernel; ++kx) {
        const float* row = columns + ((ch * g.kernel + ky) * g.kernel + kx) * oh * ow;
        for (int y = 0; y < oh; ++y) {
          const int iy = y + ky - g.padding;
          if (iy < 0 || iy >= g.height) continue;
          for (int x = 0; x < ow; ++x) {
            const int ix = x + kx - g.padding;
            if (ix >= 0 && ix < g.width) image[(ch * g.height + iy) * g.width + ix] += row[y * ow + x];
          }
        }
      }
}

// Index into the input of the maximum of output element (plane, y, x)'s 2x2 window.
std::size_t window_argmax(const Shape& in, const float* input, std::size_t plane, int y, int x) {
  const std::size_t base = plane * static_cast<std::size_t>(in.h) * static_cast<std::size_t>(in.w);
  std::size_t best = base + static_cast<std::size_t>((2 * y) * in.w + 2 * x);
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const std::size_t index = base + static_cast<std::size_t>((2 * y + dy) * in.w + 2 * x + dx);
      if (input[index] > input[best]) best = index;
    }
  return best;
}

class CpuCompute final : public Compute {
 public:
  std::string name() const override { return "cpu-openblas"; }

  void gemm(Transpose transpose_a, Transpose transpose_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c) const override {
    if (m == 0 || n == 0) return;
    if (k == 0) {  // BLAS leaves C untouched only when beta == 1; an empty sum is 0
      for (int i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
      return;
    }
    const int lda = transpose_a == Transpose::yes ? m : k;
    const int ldb = transpose_b == Transpose::yes ? k : n;
    cblas_sgemm(CblasRowMajor, to_cblas(transpose_a), to_cblas(transpose_b), m, n, k, alpha, a, lda, b, ldb, beta, c,
                n);
  }

  void conv_forward(const ConvProblem& p, const float* input, const float* weight, float* output) const override {
    const ConvGeometry& g = p.geometry;
    const int pixels = g.out_height() * g.out_width();
    const int patch = g.channels * g.kernel * g.kernel;
    columns_.resize(static_cast<std::size_t>(patch) * static_cast<std::size_t>(pixels));
    for (int n = 0; n < p.batch; ++n) {
      im2col(g, input + image_offset(p, n), columns_.data());
      gemm(Transpose::no, Transpose::no, p.out_channels, pixels, patch, 1.0f, weight, columns_.data(), 0.0f,
           output + output_offset(p, n));
    }
  }

  void conv_backward_filter(const ConvProblem& p, const float* input, const float* grad_output,
                            float* grad_weight) const override {
    const ConvGeometry& g = p.geometry;
    const int pixels = g.out_height() * g.out_width();
    const int patch = g.channels * g.kernel * g.kernel;
    columns_.resize(static_cast<std::size_t>(patch) * static_cast<std::size_t>(pixels));
    for (int n = 0; n < p.batch; ++n) {
      im2col(g, input + image_offset(p, n), columns_.data());
      gemm(Transpose::no, Transpose::yes, p.out_channels, patch, pixels, 1.0f, grad_output + output_offset(p, n),
           columns_.data(), n == 0 ? 0.0f : 1.0f, grad_weight);
    }
    if (p.batch == 0) std::fill(grad_weight, grad_weight + p.weight_elements(), 0.0f);
  }

  void conv_backward_data(const ConvProblem& p, const float* weight, const float* grad_output,
                          float* grad_input) const override {
    const ConvGeometry& g = p.geometry;
    const int pixels = g.out_height() * g.out_width();
    const int patch = g.channels * g.kernel * g.kernel;
    grad_columns_.resize(static_cast<std::size_t>(patch) * static_cast<std::size_t>(pixels));
    std::fill(grad_input, grad_input + p.input_elements(), 0.0f);
    for (int n = 0; n < p.batch; ++n) {
      gemm(Transpose::yes, Transpose::no, patch, pixels, p.out_channels, 1.0f, weight,
           grad_output + output_offset(p, n), 0.0f, grad_columns_.data());
      col2im(g, grad_columns_.data(), grad_input + image_offset(p, n));
    }
  }

  void relu_forward(std::size_t count, const float* input, float* output) const override {
    for (std::size_t i = 0; i < count; ++i) output[i] = input[i] > 0.0f ? input[i] : 0.0f;
  }

  void relu_backward(std::size_t count, const float* output, const float* grad_output,
                     float* grad_input) const override {
    for (std::size_t i = 0; i < count; ++i) grad_input[i] = output[i] > 0.0f ? grad_output[i] : 0.0f;
  }

  void max_pool_forward(const Shape& in, const float* input, float* output) const override {
    std::size_t o = 0;
    for (std::size_t plane = 0; plane < static_cast<std::size_t>(in.n) * static_cast<std::size_t>(in.c); ++plane)
      for (int y = 0; y < in.h / 2; ++y)
        for (int x = 0; x < in.w / 2; ++x, ++o) output[o] = input[window_argmax(in, input, plane, y, x)];
  }

  void max_pool_backward(const Shape& in, const float* input, const float* /*output*/, const float* grad_output,
                         float* grad_input) const override {
    std::fill(grad_input, grad_input + in.elements(), 0.0f);
    std::size_t o = 0;
    for (std::size_t plane = 0; plane < static_cast<std::size_t>(in.n) * static_cast<std::size_t>(in.c); ++plane)
      for (int y = 0; y < in.h / 2; ++y)
        for (int x = 0; x < in.w / 2; ++x, ++o) grad_input[window_argmax(in, input, plane, y, x)] += grad_output[o];
  }

 private:
  static std::size_t image_offset(const ConvProblem& p, int n) {
    const ConvGeometry& g = p.geometry;
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(g.channels) * static_cast<std::size_t>(g.height) *
           static_cast<std::size_t>(g.width);
  }
  static std::size_t output_offset(const ConvProblem& p, int n) {
    const ConvGeometry& g = p.geometry;
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(p.out_channels) *
           static_cast<std::size_t>(g.out_height()) * static_cast<std::size_t>(g.out_width());
  }

  mutable std::vector<float> columns_, grad_columns_;  // scratch, see compute.hpp
};

}  // namespace

std::unique_ptr<Compute> make_cpu_compute() { return std::make_unique<CpuCompute>(); }

void use_single_blas_thread() { openblas_set_num_threads(1); }

}  // namespace ringlab::training
