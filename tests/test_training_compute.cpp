// The Compute interface's CPU reference against direct loops (convolution, max-pool, ReLU, in
// double or exactly), on odd shapes; what the GPU backend hands cuDNN and cuBLAS
// (gpu_parameters.hpp: the column-major GEMM view checked by running it through a naive
// column-major GEMM, descriptor shapes, buffer growth, staged bytes); choosing a backend. No GPU
// is needed: tests/cuda/test_training_gpu.cpp runs the GPU backend itself.
#include <gtest/gtest.h>

#include <cmath>

#include "training_harness/compute.hpp"
#include "training_harness/compute_backends.hpp"
#include "tests/compute_comparison.hpp"
#include "training_harness/gpu_parameters.hpp"

namespace ringlab::training {
namespace {

using testing::expect_within_summation_bound;
using testing::magnitudes;
using testing::random_floats;

// y[n, o, y, x] = sum over c, ky, kx of w[o, c, ky, kx] * in[n, c, y + ky - pad, x + kx - pad].
std::vector<float> direct_conv(const ConvProblem& p, const std::vector<float>& input, const std::vector<float>& weight) {
  const ConvGeometry& g = p.geometry;
  const int oh = g.out_height(), ow = g.out_width();
  std::vector<float> output(p.output_elements());
  for (int n = 0; n < p.batch; ++n)
    for (int o = 0; o < p.out_channels; ++o)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          double sum = 0.0;
          for (int c = 0; c < g.channels; ++c)
            for (int ky = 0; ky < g.kernel; ++ky)
              for (int kx = 0; kx < g.kernel; ++kx) {
                const int iy = y + ky - g.padding, ix = x + kx - g.padding;
                if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
                sum += static_cast<double>(weight[((o * g.channels + c) * g.kernel + ky) * g.kernel + kx]) *
                       input[((n * g.channels + c) * g.height + iy) * g.width + ix];
              }
          output[((n * p.out_channels + o) * oh + y) * ow + x] = static_cast<float>(sum);
        }
  return output;
}

// The adjoints of direct_conv, by the chain rule on the same loops (double accumulation).
void direct_conv_backward(const ConvProblem& p, const std::vector<float>& input, const std::vector<float>& weight,
                          const std::vector<float>& grad_output, std::vector<float>& grad_input,
                          std::vector<float>& grad_weight) {
  const ConvGeometry& g = p.geometry;
  const int oh = g.out_height(), ow = g.out_width();
  std::vector<double> dx(p.input_elements(), 0.0), dw(p.weight_elements(), 0.0);
  for (int n = 0; n < p.batch; ++n)
    for (int o = 0; o < p.out_channels; ++o)
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
          const double dy = grad_output[((n * p.out_channels + o) * oh + y) * ow + x];
          for (int c = 0; c < g.channels; ++c)
            for (int ky = 0; ky < g.kernel; ++ky)
              for (int kx = 0; kx < g.kernel; ++kx) {
                const int iy = y + ky - g.padding, ix = x + kx - g.padding;
                if (iy < 0 || iy >= g.height || ix < 0 || ix >= g.width) continue;
                const std::size_t wi = ((o * g.channels + c) * g.kernel + ky) * g.kernel + kx;
                const std::size_t xi = ((n * g.channels + c) * g.height + iy) * g.width + ix;
                dx[xi] += dy * weight[wi];
                dw[wi] += dy * input[xi];
              }
        }
  grad_input.assign(dx.begin(), dx.end());
  grad_weight.assign(dw.begin(), dw.end());
}

// Odd shapes: 1x1 images, non-square, kernel 1 without padding, kernel 5 with padding 2, one channel.
std::vector<ConvProblem> conv_problems() {
  return {{{5, 7, 9, 3, 1}, 3, 6}, {{1, 1, 1, 3, 1}, 1, 1}, {{3, 5, 5, 1, 0}, 2, 4}, {{4, 11, 6, 5, 2}, 2, 3},
          {{2, 6, 4, 3, 0}, 1, 5}};
}

TEST(TrainingCompute, ConvolutionMatchesDirectLoops) {
  const auto compute = make_cpu_compute();
  for (const ConvProblem& p : conv_problems()) {
    const std::string what = "conv " + std::to_string(p.batch) + "x" + std::to_string(p.geometry.channels) + "x" +
                             std::to_string(p.geometry.height) + "x" + std::to_string(p.geometry.width) + " k" +
                             std::to_string(p.geometry.kernel);
    const auto input = random_floats(p.input_elements(), 1);
    const auto weight = random_floats(p.weight_elements(), 2);
    const auto grad_output = random_floats(p.output_elements(), 3);
    std::vector<float> output(p.output_elements()), grad_input(p.input_elements(), 7.0f),
        grad_weight(p.weight_elements(), 7.0f);
    compute->conv_forward(p, input.data(), weight.data(), output.data());
    compute->conv_backward_filter(p, input.data(), grad_output.data(), grad_weight.data());
    compute->conv_backward_data(p, weight.data(), grad_output.data(), grad_input.data());
    std::vector<float> expected_dx, expected_dw;
    direct_conv_backward(p, input, weight, grad_output, expected_dx, expected_dw);
    // The scales: the same operations on magnitudes.
    std::vector<float> scale_dx, scale_dw;
    direct_conv_backward(p, magnitudes(input), magnitudes(weight), magnitudes(grad_output), scale_dx, scale_dw);
    const std::size_t patch = static_cast<std::size_t>(p.geometry.channels * p.geometry.kernel * p.geometry.kernel);
    expect_within_summation_bound(output, direct_conv(p, input, weight),
                                  direct_conv(p, magnitudes(input), magnitudes(weight)), patch, what + " forward");
    expect_within_summation_bound(grad_weight, expected_dw, scale_dw,
                                  p.output_elements() / static_cast<std::size_t>(p.out_channels), what + " dW");
    expect_within_summation_bound(grad_input, expected_dx, scale_dx,
                                  static_cast<std::size_t>(p.out_channels * p.geometry.kernel * p.geometry.kernel),
                                  what + " dX");
  }
}

TEST(TrainingCompute, EmptyBatchZeroesTheWeightGradient) {
  const auto compute = make_cpu_compute();
  const ConvProblem p{{2, 4, 4, 3, 1}, 0, 3};
  std::vector<float> grad_weight(p.weight_elements(), 5.0f);
  compute->conv_backward_filter(p, nullptr, nullptr, grad_weight.data());
  for (float value : grad_weight) EXPECT_EQ(value, 0.0f);
}

TEST(TrainingCompute, MaxPoolAndReluMatchDirectLoops) {
  const auto compute = make_cpu_compute();
  for (const Shape& in : {Shape{2, 3, 7, 9}, Shape{1, 1, 1, 5}, Shape{1, 2, 2, 2}, Shape{3, 1, 5, 4}}) {
    const auto input = random_floats(in.elements(), 4);
    const Shape out{in.n, in.c, in.h / 2, in.w / 2};
    const auto grad_output = random_floats(out.elements(), 5);
    std::vector<float> output(out.elements()), grad_input(in.elements(), 9.0f);
    compute->max_pool_forward(in, input.data(), output.data());
    compute->max_pool_backward(in, input.data(), output.data(), grad_output.data(), grad_input.data());
    std::vector<float> expected_dx(in.elements(), 0.0f);
    std::size_t o = 0;
    for (int plane = 0; plane < in.n * in.c; ++plane)
      for (int y = 0; y < out.h; ++y)
        for (int x = 0; x < out.w; ++x, ++o) {
          std::size_t best = 0;
          float best_value = -INFINITY;
          for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) {
              const std::size_t index = (static_cast<std::size_t>(plane) * in.h + 2 * y + dy) * in.w + 2 * x + dx;
              if (input[index] > best_value) best_value = input[index], best = index;
            }
          EXPECT_EQ(output[o], best_value) << "pool output " << o;
          expected_dx[best] = grad_output[o];
        }
    EXPECT_EQ(grad_input, expected_dx) << "pool backward, odd edges 0";
  }
  const auto x = random_floats(1001, 6);
  const auto dy = random_floats(x.size(), 7);
  std::vector<float> y(x.size()), dx(x.size());
  compute->relu_forward(x.size(), x.data(), y.data());
  compute->relu_backward(x.size(), y.data(), dy.data(), dx.data());
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f);
    EXPECT_EQ(dx[i], x[i] > 0 ? dy[i] : 0.0f);
  }
}

// cuBLAS's column-major sgemm, as loops: C[i + j*ldc] = alpha sum_l op(A)(i,l) op(B)(l,j) + beta C.
void column_major_sgemm(Transpose ta, Transpose tb, int m, int n, int k, float alpha, const float* a, int lda,
                        const float* b, int ldb, float beta, float* c, int ldc) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int l = 0; l < k; ++l) {
        const float av = ta == Transpose::yes ? a[l + i * lda] : a[i + l * lda];
        const float bv = tb == Transpose::yes ? b[j + l * ldb] : b[l + j * ldb];
        sum += static_cast<double>(av) * bv;
      }
      c[i + j * ldc] = static_cast<float>(alpha * sum + beta * c[i + j * ldc]);
    }
}

TEST(TrainingGpuParameters, ColumnMajorGemmComputesTheRowMajorProduct) {
  const auto compute = make_cpu_compute();
  for (const Transpose ta : {Transpose::no, Transpose::yes})
    for (const Transpose tb : {Transpose::no, Transpose::yes})
      for (const auto& [m, n, k] : {std::tuple{7, 13, 5}, std::tuple{1, 1, 1}, std::tuple{33, 17, 65}}) {
        const auto a = random_floats(static_cast<std::size_t>(m * k), 8);
        const auto b = random_floats(static_cast<std::size_t>(k * n), 9);
        const auto c0 = random_floats(static_cast<std::size_t>(m * n), 10);
        std::vector<float> expected = c0, actual = c0;
        compute->gemm(ta, tb, m, n, k, 0.5f, a.data(), b.data(), 2.0f, expected.data());
        const ColumnMajorGemm call = column_major_gemm(ta, tb, m, n, k);
        column_major_sgemm(call.first_op, call.second_op, call.rows, call.cols, call.inner, 0.5f, b.data(),
                           call.ld_first, a.data(), call.ld_second, 2.0f, actual.data(), call.ld_result);
        std::vector<float> scale = magnitudes(c0);
        std::vector<float> products(static_cast<std::size_t>(m * n), 0.0f);
        compute->gemm(ta, tb, m, n, k, 0.5f, magnitudes(a).data(), magnitudes(b).data(), 0.0f, products.data());
        for (std::size_t i = 0; i < scale.size(); ++i) scale[i] = 2.0f * scale[i] + products[i];
        expect_within_summation_bound(actual, expected, scale, static_cast<std::size_t>(k) + 1,
                                      "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                          " k=" + std::to_string(k));
      }
}

TEST(TrainingGpuParameters, DescriptorShapesAreTheLayersShapes) {
  const ConvProblem p{{5, 7, 9, 3, 1}, 3, 6};
  const ConvDescriptors conv = conv_descriptors(p);
  EXPECT_EQ(conv.input, (std::array<int, 4>{3, 5, 7, 9}));
  EXPECT_EQ(conv.filter, (std::array<int, 4>{6, 5, 3, 3}));
  EXPECT_EQ(conv.output, (std::array<int, 4>{3, 6, 7, 9}));
  EXPECT_EQ(conv.pad_h, 1);
  EXPECT_EQ(conv.pad_w, 1);
  EXPECT_EQ(conv.stride_h * conv.stride_w * conv.dilation_h * conv.dilation_w, 1);
  const ConvDescriptors unpadded = conv_descriptors({{2, 6, 4, 3, 0}, 1, 5});
  EXPECT_EQ(unpadded.output, (std::array<int, 4>{1, 5, 4, 2}));
  const PoolDescriptors pool = pool_descriptors({2, 3, 7, 9});
  EXPECT_EQ(pool.output, (std::array<int, 4>{2, 3, 3, 4}));  // odd edges dropped, as MaxPool2x2
  EXPECT_EQ(pool_descriptors({1, 1, 1, 5}).output, (std::array<int, 4>{1, 1, 0, 2}));
}

TEST(TrainingGpuParameters, BuffersGrowByHalfOrToTheNeed) {
  EXPECT_EQ(grown_capacity(0, 100), 100u);
  EXPECT_EQ(grown_capacity(100, 80), 100u);    // fits: kept
  EXPECT_EQ(grown_capacity(100, 101), 150u);   // at least 1.5x
  EXPECT_EQ(grown_capacity(100, 1000), 1000u); // or what is needed
}

TEST(TrainingGpuParameters, StagedBytesCountEveryOperand) {
  const ConvProblem p{{3, 8, 8, 3, 1}, 2, 4};  // x 384, W 108, y 512 floats
  EXPECT_EQ(conv_forward_staging(p).to_device, (384u + 108u) * 4u);
  EXPECT_EQ(conv_forward_staging(p).to_host, 512u * 4u);
  EXPECT_EQ(conv_backward_filter_staging(p).to_device, (384u + 512u) * 4u);
  EXPECT_EQ(conv_backward_filter_staging(p).to_host, 108u * 4u);
  EXPECT_EQ(conv_backward_data_staging(p).to_device, (108u + 512u) * 4u);
  EXPECT_EQ(conv_backward_data_staging(p).to_host, 384u * 4u);
  EXPECT_EQ(gemm_staging(2, 3, 4, false).to_device, (8u + 12u) * 4u);
  EXPECT_EQ(gemm_staging(2, 3, 4, true).to_device, (8u + 12u + 6u) * 4u);
}

TEST(TrainingComputeBackends, NamesAndAvailability) {
  EXPECT_EQ(parse_compute("cpu"), ComputeKind::cpu);
  EXPECT_EQ(parse_compute("gpu"), ComputeKind::gpu);
  EXPECT_EQ(name_of(ComputeKind::gpu), "gpu");
  try {
    parse_compute("tpu");
    ADD_FAILURE() << "tpu accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "unknown compute backend 'tpu'; valid: cpu, gpu");
  }
  EXPECT_NO_THROW(check_compute_available(ComputeKind::cpu));
  EXPECT_EQ(make_compute(ComputeKind::cpu, 3)->name(), "cpu-openblas");
  if (gpu_compute_built()) GTEST_SKIP() << "this build has the GPU backend; cuda.training_gpu_errors checks it";
  try {
    check_compute_available(ComputeKind::gpu);
    ADD_FAILURE() << "--compute gpu accepted by a build without it";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("--compute gpu needs a build with CUDA (RINGLAB_ENABLE_CUDA=ON)"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace ringlab::training
