// The compute interface the layers call for their heavy kernels (GEMM and the im2col pair), so
// that a GPU backend (cuBLAS/cuDNN) can be added next to the CPU reference without touching the
// layers. All pointers are host memory in this version; a device backend will also need the
// layers' element-wise loops and memory placement moved behind this interface.
#pragma once

#include <memory>
#include <string>

namespace ringlab::training {

enum class Transpose { no, yes };

struct ConvGeometry {
  int channels = 0;
  int height = 0;
  int width = 0;
  int kernel = 3;
  int padding = 1;  // stride is 1
  int out_height() const { return height + 2 * padding - kernel + 1; }
  int out_width() const { return width + 2 * padding - kernel + 1; }
};

class Compute {
 public:
  virtual ~Compute() = default;
  virtual std::string name() const = 0;
  // Row-major C[m x n] = alpha * op(A)[m x k] * op(B)[k x n] + beta * C.
  virtual void gemm(Transpose transpose_a, Transpose transpose_b, int m, int n, int k, float alpha, const float* a,
                    const float* b, float beta, float* c) const = 0;
  // One image [channels, height, width] -> columns [channels*kernel*kernel, out_height*out_width].
  virtual void im2col(const ConvGeometry& geometry, const float* image, float* columns) const = 0;
  // The adjoint: adds the columns back onto the image (which the caller zeroes first).
  virtual void col2im(const ConvGeometry& geometry, const float* columns, float* image) const = 0;
};

// The CPU reference: OpenBLAS cblas_sgemm and plain loops.
std::unique_ptr<Compute> make_cpu_compute();

// Sets OpenBLAS to one thread per process; ranks are the parallelism (call once at start).
void use_single_blas_thread();

}  // namespace ringlab::training
