// The GPU compute backend (training_harness/gpu_compute.hpp) against the CPU reference.
//   GpuComputeErrors (runs anywhere): cuDNN and cuBLAS failures are named; --compute gpu without
//                    a visible device is refused with "no CUDA device".
//   GpuCompute       (a GPU): every op on random inputs, odd shapes included. ReLU and max-pool
//                    only select values, so they must match bit for bit; GEMM and the three
//                    convolutions sum in another order (and cuDNN/cuBLAS may fuse multiply-adds),
//                    so each element must lie within the float32 summation bound
//                    2 * K * 2^-24 * sum|terms| of the CPU's (compute_comparison.hpp).
//   GpuTraining      (a GPU): a few SGD steps of a tiny VGG, CPU vs GPU, single and dp.
// Without a GPU the device suites skip with "no CUDA device" (gpu_test_support.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "collectives/backends/threads_communicator.hpp"
#include "training_harness/compute_backends.hpp"
#include "tests/compute_comparison.hpp"
#include "tests/cuda/gpu_test_support.hpp"
#include "training_harness/dataset.hpp"
#include "training_harness/gpu_compute.hpp"
#include "training_harness/gpu_handles.hpp"
#include "training_harness/trainer.hpp"

namespace ringlab::training {
namespace {

using testing::expect_within_summation_bound;
using testing::magnitudes;
using testing::random_floats;

TEST(GpuComputeErrors, LibraryFailuresNameTheCallAndTheStatus) {
  try {
    check_cudnn(CUDNN_STATUS_BAD_PARAM, {-1, 0}, "cudnnConvolutionForward(batch 2)");
    ADD_FAILURE() << "no exception";
  } catch (const cuda::CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("device 0: cudnnConvolutionForward(batch 2) failed: CUDNN_STATUS_BAD_PARAM"),
              std::string::npos)
        << message;
  }
  try {
    check_cublas(CUBLAS_STATUS_INVALID_VALUE, {2, 1}, "cublasSgemm(m=1, n=2, k=3)");
    ADD_FAILURE() << "no exception";
  } catch (const cuda::CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("rank 2, device 1: cublasSgemm(m=1, n=2, k=3) failed: CUBLAS_STATUS_INVALID_VALUE (cublas status 7)"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(cublas_status_name(static_cast<cublasStatus_t>(2)), "unknown cuBLAS status");  // 2 is unused
  EXPECT_NO_THROW(check_cudnn(CUDNN_STATUS_SUCCESS, {}, "none"));
  EXPECT_NO_THROW(check_cublas(CUBLAS_STATUS_SUCCESS, {}, "none"));
}

// cuBLAS is opened at run time (gpu_handles.hpp); opening it needs no device.
TEST(GpuComputeErrors, CublasOpensAtRunTime) {
  const CublasLibrary library({-1, 0});
  EXPECT_NE(library.create, nullptr);
  EXPECT_NE(library.sgemm, nullptr);
  EXPECT_NE(library.destroy, nullptr);
}

TEST(GpuComputeErrors, GpuBackendNeedsADevice) {
  EXPECT_TRUE(gpu_compute_built());
  if (cuda::visible_device_count() > 0) {
    EXPECT_NO_THROW(check_compute_available(ComputeKind::gpu));
    return;
  }
  try {
    check_compute_available(ComputeKind::gpu);
    ADD_FAILURE() << "--compute gpu accepted without a device";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("--compute gpu: no CUDA device is visible"), std::string::npos)
        << error.what();
  }
}

std::string describe(const ConvProblem& p) {
  return "conv batch " + std::to_string(p.batch) + ", " + std::to_string(p.geometry.channels) + "x" +
         std::to_string(p.geometry.height) + "x" + std::to_string(p.geometry.width) + " -> " +
         std::to_string(p.out_channels) + ", kernel " + std::to_string(p.geometry.kernel);
}

TEST(GpuCompute, ConvolutionsWithinTheSummationBoundOfTheCpu) {
  RINGLAB_SKIP_WITHOUT_GPU();
  const auto cpu = make_cpu_compute();
  const auto gpu = make_gpu_compute(0);
  // Odd shapes (1x1, non-square, kernel 1 and 5, one channel) and a VGG-sized layer.
  const std::vector<ConvProblem> problems = {{{5, 7, 9, 3, 1}, 3, 6},   {{1, 1, 1, 3, 1}, 1, 1},
                                             {{3, 5, 5, 1, 0}, 2, 4},   {{4, 11, 6, 5, 2}, 2, 3},
                                             {{2, 6, 4, 3, 0}, 1, 5},   {{16, 32, 32, 3, 1}, 8, 32}};
  for (const ConvProblem& p : problems) {
    const auto x = random_floats(p.input_elements(), 11);
    const auto w = random_floats(p.weight_elements(), 12);
    const auto dy = random_floats(p.output_elements(), 13);
    auto run = [&](const Compute& compute, const std::vector<float>& xs, const std::vector<float>& ws,
                   const std::vector<float>& dys) {
      std::vector<std::vector<float>> results{std::vector<float>(p.output_elements()),
                                              std::vector<float>(p.weight_elements(), 3.0f),
                                              std::vector<float>(p.input_elements(), 3.0f)};
      compute.conv_forward(p, xs.data(), ws.data(), results[0].data());
      compute.conv_backward_filter(p, xs.data(), dys.data(), results[1].data());
      compute.conv_backward_data(p, ws.data(), dys.data(), results[2].data());
      return results;
    };
    const auto expected = run(*cpu, x, w, dy);
    const auto actual = run(*gpu, x, w, dy);
    const auto scale = run(*cpu, magnitudes(x), magnitudes(w), magnitudes(dy));
    const std::size_t k2 = static_cast<std::size_t>(p.geometry.kernel * p.geometry.kernel);
    expect_within_summation_bound(actual[0], expected[0], scale[0], static_cast<std::size_t>(p.geometry.channels) * k2,
                                  describe(p) + " forward");
    expect_within_summation_bound(actual[1], expected[1], scale[1],
                                  p.output_elements() / static_cast<std::size_t>(p.out_channels),
                                  describe(p) + " backward filter");
    expect_within_summation_bound(actual[2], expected[2], scale[2], static_cast<std::size_t>(p.out_channels) * k2,
                                  describe(p) + " backward data");
  }
}

TEST(GpuCompute, GemmWithinTheSummationBoundOfTheCpu) {
  RINGLAB_SKIP_WITHOUT_GPU();
  const auto cpu = make_cpu_compute();
  const auto gpu = make_gpu_compute(0);
  for (const Transpose ta : {Transpose::no, Transpose::yes})
    for (const Transpose tb : {Transpose::no, Transpose::yes})
      for (const auto& [m, n, k, beta] : {std::tuple{7, 13, 5, 0.0f}, std::tuple{1, 1, 1, 0.0f},
                                          std::tuple{33, 17, 65, 2.0f}, std::tuple{64, 4096, 257, 0.0f}}) {
        const auto a = random_floats(static_cast<std::size_t>(m) * k, 14);
        const auto b = random_floats(static_cast<std::size_t>(k) * n, 15);
        const auto c0 = random_floats(static_cast<std::size_t>(m) * n, 16);
        std::vector<float> expected = c0, actual = c0, scale = magnitudes(c0);
        cpu->gemm(ta, tb, m, n, k, 1.0f, a.data(), b.data(), beta, expected.data());
        gpu->gemm(ta, tb, m, n, k, 1.0f, a.data(), b.data(), beta, actual.data());
        cpu->gemm(ta, tb, m, n, k, 1.0f, magnitudes(a).data(), magnitudes(b).data(), beta, scale.data());
        expect_within_summation_bound(actual, expected, scale, static_cast<std::size_t>(k) + 1,
                                      "gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
      }
}

TEST(GpuCompute, ReluAndMaxPoolMatchTheCpuBitForBit) {
  RINGLAB_SKIP_WITHOUT_GPU();
  const auto cpu = make_cpu_compute();
  const auto gpu = make_gpu_compute(0);
  for (const Shape& in : {Shape{2, 3, 7, 9}, Shape{1, 1, 1, 5}, Shape{1, 2, 2, 2}, Shape{8, 16, 32, 32}}) {
    const Shape out{in.n, in.c, in.h / 2, in.w / 2};
    const auto x = random_floats(in.elements(), 17);
    const auto dy = random_floats(out.elements(), 18);
    std::vector<float> y_cpu(out.elements()), y_gpu(out.elements()), dx_cpu(in.elements(), 4.0f),
        dx_gpu(in.elements(), 4.0f);
    cpu->max_pool_forward(in, x.data(), y_cpu.data());
    gpu->max_pool_forward(in, x.data(), y_gpu.data());
    EXPECT_EQ(y_gpu, y_cpu) << "max-pool forward " << in.n << "x" << in.c << "x" << in.h << "x" << in.w;
    cpu->max_pool_backward(in, x.data(), y_cpu.data(), dy.data(), dx_cpu.data());
    gpu->max_pool_backward(in, x.data(), y_cpu.data(), dy.data(), dx_gpu.data());
    EXPECT_EQ(dx_gpu, dx_cpu) << "max-pool backward (odd edges 0) " << in.n << "x" << in.c << "x" << in.h << "x"
                              << in.w;
    std::vector<float> r_cpu(in.elements()), r_gpu(in.elements()), g_cpu(in.elements()), g_gpu(in.elements());
    const auto grad = random_floats(in.elements(), 19);
    cpu->relu_forward(x.size(), x.data(), r_cpu.data());
    gpu->relu_forward(x.size(), x.data(), r_gpu.data());
    EXPECT_EQ(r_gpu, r_cpu) << "relu forward";
    cpu->relu_backward(x.size(), r_cpu.data(), grad.data(), g_cpu.data());
    gpu->relu_backward(x.size(), r_cpu.data(), grad.data(), g_gpu.data());
    EXPECT_EQ(g_gpu, g_cpu) << "relu backward";
  }
}

// Losses of `steps` SGD steps and the final parameters, every rank on `kind`.
struct Trained {
  std::vector<double> losses;
  std::vector<float> parameters;
};

Trained train(ComputeKind kind, Mode mode, int nranks, int steps) {
  TrainConfig config;
  config.mode = mode;
  config.model = parse_model("cifar-vgg,width=2,fc=16");
  config.global_batch = 8;
  Trained result;
  std::mutex mutex;
  use_single_blas_thread();
  run_threads(nranks, [&](Communicator& comm) {
    const auto compute = make_compute(kind, comm.rank());
    const std::uint64_t records = 256;
    const ImageSet data =
        make_synthetic(records_of_rank(records, config.global_batch, steps, comm.rank(), nranks), 32, 10, 5);
    auto trainer = make_trainer(config, comm, *compute);
    Tensor images;
    std::vector<std::uint8_t> labels;
    std::vector<double> losses;
    for (int s = 0; s < steps; ++s) {
      fill_batch(data, records, config.global_batch, s, comm.rank(), nranks, images, labels);
      losses.push_back(trainer->step(images, labels).loss);
    }
    std::vector<float> parameters = trainer->gather_parameters();
    if (comm.rank() != 0) return;
    const std::lock_guard lock(mutex);
    result = {losses, parameters};
  });
  return result;
}

// Per-op differences are ~1e-7 relative (the bounds above); through 4 steps of forward, backward
// and update they stay far below 1e-4 of the loss and of the largest weight, while a wrong
// gradient moves the loss of the second step by more than 1e-2.
TEST(GpuTraining, TinyVggStepsMatchTheCpu) {
  RINGLAB_SKIP_WITHOUT_GPU();
  for (const auto& [mode, nranks] : {std::pair{Mode::single, 1}, std::pair{Mode::dp, 2}}) {
    const Trained cpu = train(ComputeKind::cpu, mode, nranks, 4);
    const Trained gpu = train(ComputeKind::gpu, mode, nranks, 4);
    ASSERT_EQ(gpu.losses.size(), cpu.losses.size());
    for (std::size_t s = 0; s < cpu.losses.size(); ++s)
      EXPECT_NEAR(gpu.losses[s], cpu.losses[s], 1e-4 * std::abs(cpu.losses[s])) << name_of(mode) << " step " << s;
    ASSERT_EQ(gpu.parameters.size(), cpu.parameters.size());
    float largest = 0.0f, difference = 0.0f;
    for (std::size_t i = 0; i < cpu.parameters.size(); ++i) {
      largest = std::max(largest, std::abs(cpu.parameters[i]));
      difference = std::max(difference, std::abs(gpu.parameters[i] - cpu.parameters[i]));
    }
    EXPECT_LE(difference, 1e-4f * largest) << name_of(mode) << ": largest parameter difference";
  }
}

}  // namespace
}  // namespace ringlab::training
