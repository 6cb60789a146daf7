// CPU reference compute: GEMM through OpenBLAS, im2col/col2im as loops (stride 1, zero padding).
#include <cblas.h>

#include "compute.hpp"

namespace ringlab::training {

namespace {

CBLAS_TRANSPOSE to_cblas(Transpose transpose) { return transpose == Transpose::yes ? CblasTrans : CblasNoTrans; }

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

  void im2col(const ConvGeometry& g, const float* image, float* columns) const override {
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

  void col2im(const ConvGeometry& g, const float* columns, float* image) const override {
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
};

}  // namespace

std::unique_ptr<Compute> make_cpu_compute() { return std::make_unique<CpuCompute>(); }

void use_single_blas_thread() { openblas_set_num_threads(1); }

}  // namespace ringlab::training
