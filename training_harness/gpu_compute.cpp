// GpuCompute: see gpu_compute.hpp for the steps of each call.
#include "training_harness/gpu_compute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>

#include "training_harness/gpu_handles.hpp"
#include "training_harness/gpu_parameters.hpp"

namespace ringlab::training {

namespace {

cublasOperation_t to_cublas(Transpose transpose) { return transpose == Transpose::yes ? CUBLAS_OP_T : CUBLAS_OP_N; }

constexpr float one = 1.0f;
constexpr float zero = 0.0f;

// Everything that lives on the device, destroyed with the device current (~GpuCompute).
struct DeviceResources {
  explicit DeviceResources(cuda::DeviceContext where)
      : cublas_library(where),
        stream(where),
        cudnn(where, stream.get()),
        cublas(cublas_library, where, stream.get()),
        x_desc(where),
        y_desc(where),
        w_desc(where),
        conv_desc(where),
        pool_desc(where),
        relu_desc(where),
        a(where),
        b(where),
        c(where),
        workspace(where) {}
  CublasLibrary cublas_library;  // first: closed after the handle is destroyed
  cuda::Stream stream;
  CudnnHandle cudnn;
  CublasHandle cublas;
  TensorDescriptor x_desc, y_desc;
  FilterDescriptor w_desc;
  ConvolutionDescriptor conv_desc;
  PoolingDescriptor pool_desc;
  ActivationDescriptor relu_desc;
  GrowingDeviceBuffer a, b, c, workspace;
};

class GpuCompute final : public Compute {
 public:
  explicit GpuCompute(int device) : where_{-1, device} {
    const cuda::ScopedDevice current(where_);
    resources_ = std::make_unique<DeviceResources>(where_);
    check_cudnn(cudnnSetPooling2dDescriptor(resources_->pool_desc.get(), CUDNN_POOLING_MAX_DETERMINISTIC,
                                            CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2),
                where_, "cudnnSetPooling2dDescriptor");
    check_cudnn(cudnnSetActivationDescriptor(resources_->relu_desc.get(), CUDNN_ACTIVATION_RELU,
                                             CUDNN_NOT_PROPAGATE_NAN, 0.0),
                where_, "cudnnSetActivationDescriptor");
    cudaDeviceProp properties{};
    cuda::check_cuda(cudaGetDeviceProperties(&properties, device), where_, "cudaGetDeviceProperties");
    int cublas_version = 0;
    check_cublas(resources_->cublas_library.get_version(resources_->cublas.get(), &cublas_version), where_,
                 "cublasGetVersion");
    const auto cudnn_version = static_cast<int>(cudnnGetVersion());
    name_ = fmt::format("gpu-cudnn (cuDNN {}.{}.{}, cuBLAS {}.{}.{}, GPU {} {}; operands staged per call)",
                        cudnn_version / 10000, cudnn_version % 10000 / 100, cudnn_version % 100,
                        cublas_version / 10000, cublas_version % 10000 / 100, cublas_version % 100, device,
                        properties.name);
  }

  ~GpuCompute() override {
    const cuda::ScopedDevice current(where_, std::nothrow);
    resources_.reset();
  }
  GpuCompute(const GpuCompute&) = delete;
  GpuCompute& operator=(const GpuCompute&) = delete;

  std::string name() const override { return name_; }

  void gemm(Transpose transpose_a, Transpose transpose_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c) const override {
    if (m == 0 || n == 0) return;
    const std::size_t c_elements = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
    if (k == 0) {  // an empty sum is 0, as on the CPU
      for (std::size_t i = 0; i < c_elements; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
      return;
    }
    const cuda::ScopedDevice current(where_);
    DeviceResources& r = *resources_;
    const std::size_t a_elements = static_cast<std::size_t>(m) * static_cast<std::size_t>(k);
    const std::size_t b_elements = static_cast<std::size_t>(k) * static_cast<std::size_t>(n);
    float* device_a = upload(r.a, a, a_elements);
    float* device_b = upload(r.b, b, b_elements);
    float* device_c = beta == 0.0f ? reserve(r.c, c_elements) : upload(r.c, c, c_elements);
    const ColumnMajorGemm call = column_major_gemm(transpose_a, transpose_b, m, n, k);
    check_cublas(r.cublas_library.sgemm(r.cublas.get(), to_cublas(call.first_op), to_cublas(call.second_op),
                                        call.rows, call.cols, call.inner, &alpha, device_b, call.ld_first, device_a,
                                        call.ld_second, &beta, device_c, call.ld_result),
                 where_, fmt::format("cublasSgemm(m={}, n={}, k={})", m, n, k));
    download(c, device_c, c_elements);
  }

  void conv_forward(const ConvProblem& p, const float* input, const float* weight, float* output) const override {
    if (p.batch == 0) return;
    const DeviceResources& r = *resources_;
    const auto algorithm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    convolve(
        p, {input, weight, nullptr}, ConvOperand::output, output, "cudnnConvolutionForward",
        [&](std::size_t* bytes) {
          return cudnnGetConvolutionForwardWorkspaceSize(r.cudnn.get(), r.x_desc.get(), r.w_desc.get(),
                                                         r.conv_desc.get(), r.y_desc.get(), algorithm, bytes);
        },
        [&](float* x, float* w, float* y, void* workspace, std::size_t bytes) {
          return cudnnConvolutionForward(r.cudnn.get(), &one, r.x_desc.get(), x, r.w_desc.get(), w, r.conv_desc.get(),
                                         algorithm, workspace, bytes, &zero, r.y_desc.get(), y);
        });
  }

  void conv_backward_filter(const ConvProblem& p, const float* input, const float* grad_output,
                            float* grad_weight) const override {
    if (p.batch == 0) {
      std::fill(grad_weight, grad_weight + p.weight_elements(), 0.0f);
      return;
    }
    const DeviceResources& r = *resources_;
    const auto algorithm = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;
    convolve(
        p, {input, nullptr, grad_output}, ConvOperand::weight, grad_weight, "cudnnConvolutionBackwardFilter",
        [&](std::size_t* bytes) {
          return cudnnGetConvolutionBackwardFilterWorkspaceSize(r.cudnn.get(), r.x_desc.get(), r.y_desc.get(),
                                                                r.conv_desc.get(), r.w_desc.get(), algorithm, bytes);
        },
        [&](float* x, float* dw, float* dy, void* workspace, std::size_t bytes) {
          return cudnnConvolutionBackwardFilter(r.cudnn.get(), &one, r.x_desc.get(), x, r.y_desc.get(), dy,
                                                r.conv_desc.get(), algorithm, workspace, bytes, &zero, r.w_desc.get(),
                                                dw);
        });
  }

  void conv_backward_data(const ConvProblem& p, const float* weight, const float* grad_output,
                          float* grad_input) const override {
    if (p.batch == 0) return;
    const DeviceResources& r = *resources_;
    const auto algorithm = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    convolve(
        p, {nullptr, weight, grad_output}, ConvOperand::input, grad_input, "cudnnConvolutionBackwardData",
        [&](std::size_t* bytes) {
          return cudnnGetConvolutionBackwardDataWorkspaceSize(r.cudnn.get(), r.w_desc.get(), r.y_desc.get(),
                                                              r.conv_desc.get(), r.x_desc.get(), algorithm, bytes);
        },
        [&](float* dx, float* w, float* dy, void* workspace, std::size_t bytes) {
          return cudnnConvolutionBackwardData(r.cudnn.get(), &one, r.w_desc.get(), w, r.y_desc.get(), dy,
                                              r.conv_desc.get(), algorithm, workspace, bytes, &zero, r.x_desc.get(),
                                              dx);
        });
  }

  void relu_forward(std::size_t count, const float* input, float* output) const override {
    if (count == 0) return;
    const cuda::ScopedDevice current(where_);
    DeviceResources& r = *resources_;
    set_flat_descriptor(r.x_desc, count);
    const float* x = upload(r.a, input, count);
    float* y = reserve(r.c, count);
    check_cudnn(cudnnActivationForward(r.cudnn.get(), r.relu_desc.get(), &one, r.x_desc.get(), x, &zero,
                                       r.x_desc.get(), y),
                where_, fmt::format("cudnnActivationForward(relu, {} elements)", count));
    download(output, y, count);
  }

  void relu_backward(std::size_t count, const float* output, const float* grad_output,
                     float* grad_input) const override {
    if (count == 0) return;
    const cuda::ScopedDevice current(where_);
    DeviceResources& r = *resources_;
    set_flat_descriptor(r.x_desc, count);
    const float* y = upload(r.a, output, count);
    const float* dy = upload(r.b, grad_output, count);
    float* dx = reserve(r.c, count);
    // y stands in for x: for ReLU, y > 0 exactly where x > 0.
    check_cudnn(cudnnActivationBackward(r.cudnn.get(), r.relu_desc.get(), &one, r.x_desc.get(), y, r.x_desc.get(),
                                        dy, r.x_desc.get(), y, &zero, r.x_desc.get(), dx),
                where_, fmt::format("cudnnActivationBackward(relu, {} elements)", count));
    download(grad_input, dx, count);
  }

  void max_pool_forward(const Shape& shape, const float* input, float* output) const override {
    const PoolDescriptors d = pool_descriptors(shape);
    const Shape out{d.output[0], d.output[1], d.output[2], d.output[3]};
    if (out.elements() == 0) return;
    const cuda::ScopedDevice current(where_);
    DeviceResources& r = *resources_;
    set_pool_descriptors(d);
    const float* x = upload(r.a, input, shape.elements());
    float* y = reserve(r.c, out.elements());
    check_cudnn(cudnnPoolingForward(r.cudnn.get(), r.pool_desc.get(), &one, r.x_desc.get(), x, &zero, r.y_desc.get(),
                                    y),
                where_, fmt::format("cudnnPoolingForward(max 2x2, {}x{}x{}x{})", shape.n, shape.c, shape.h, shape.w));
    download(output, y, out.elements());
  }

  void max_pool_backward(const Shape& shape, const float* input, const float* output, const float* grad_output,
                         float* grad_input) const override {
    const PoolDescriptors d = pool_descriptors(shape);
    const Shape out{d.output[0], d.output[1], d.output[2], d.output[3]};
    if (out.elements() == 0) {
      std::fill(grad_input, grad_input + shape.elements(), 0.0f);
      return;
    }
    const cuda::ScopedDevice current(where_);
    DeviceResources& r = *resources_;
    set_pool_descriptors(d);
    // Four operands: x and dx share the input's size, y and dy the output's; dx is cleared first so
    // the dropped odd edges hold 0 whatever cuDNN writes there.
    const std::size_t in_bytes = shape.elements() * sizeof(float);
    const std::size_t out_bytes = out.elements() * sizeof(float);
    const std::size_t dx_offset = aligned(shape.elements());
    const std::size_t dy_offset = aligned(out.elements());
    auto* x = static_cast<float*>(r.a.reserve(dx_offset * sizeof(float) + in_bytes));
    float* dx = x + dx_offset;
    auto* y = static_cast<float*>(r.b.reserve(dy_offset * sizeof(float) + out_bytes));
    float* dy = y + dy_offset;
    copy_to_device(x, input, shape.elements());
    copy_to_device(y, output, out.elements());
    copy_to_device(dy, grad_output, out.elements());
    cuda::check_cuda(cudaMemsetAsync(dx, 0, in_bytes, r.stream.get()), where_, "cudaMemsetAsync");
    check_cudnn(cudnnPoolingBackward(r.cudnn.get(), r.pool_desc.get(), &one, r.y_desc.get(), y, r.y_desc.get(), dy,
                                     r.x_desc.get(), x, &zero, r.x_desc.get(), dx),
                where_, fmt::format("cudnnPoolingBackward(max 2x2, {}x{}x{}x{})", shape.n, shape.c, shape.h, shape.w));
    download(grad_input, dx, shape.elements());
  }

 private:
  static std::string describe(const ConvProblem& p) {
    return fmt::format("batch {}, {}x{}x{} -> {} channels, kernel {}, padding {}", p.batch, p.geometry.channels,
                       p.geometry.height, p.geometry.width, p.out_channels, p.geometry.kernel, p.geometry.padding);
  }

  enum class ConvOperand { input, weight, output };
  struct ConvHostInputs {
    const float* input;   // x (forward, backward filter)
    const float* weight;  // W (forward, backward data)
    const float* output;  // dy (backward filter, backward data)
  };

  // What the three convolutions share: the descriptors set, x in buffer a, W in b, y or dy in c
  // (the two inputs uploaded, the result's buffer only reserved), the workspace sized by
  // `workspace_size(&bytes)` and reused, `run(x, w, y, workspace, bytes)`, the result downloaded.
  template <typename WorkspaceSize, typename Run>
  void convolve(const ConvProblem& p, ConvHostInputs host, ConvOperand result, float* host_result, const char* call,
                WorkspaceSize workspace_size, Run run) const {
    const cuda::ScopedDevice current(where_);
    DeviceResources& r = *resources_;
    set_conv_descriptors(p);
    float* x = stage(r.a, host.input, p.input_elements());
    float* w = stage(r.b, host.weight, p.weight_elements());
    float* y = stage(r.c, host.output, p.output_elements());
    std::size_t bytes = 0;
    check_cudnn(workspace_size(&bytes), where_, fmt::format("{} workspace size", call));
    void* workspace = r.workspace.reserve(bytes);
    check_cudnn(run(x, w, y, workspace, bytes), where_, fmt::format("{}({})", call, describe(p)));
    switch (result) {
      case ConvOperand::input: download(host_result, x, p.input_elements()); break;
      case ConvOperand::weight: download(host_result, w, p.weight_elements()); break;
      case ConvOperand::output: download(host_result, y, p.output_elements()); break;
    }
  }

  // The device copy of `host` (reserved only, when host is null: a result).
  float* stage(GrowingDeviceBuffer& buffer, const float* host, std::size_t elements) const {
    return host ? upload(buffer, host, elements) : reserve(buffer, elements);
  }

  // Elements rounded up to 256 bytes, so that a second operand in one buffer starts aligned.
  static std::size_t aligned(std::size_t elements) { return (elements + 63) / 64 * 64; }

  float* reserve(GrowingDeviceBuffer& buffer, std::size_t elements) const {
    return static_cast<float*>(buffer.reserve(elements * sizeof(float)));
  }

  void copy_to_device(float* device, const float* host, std::size_t elements) const {
    cuda::check_cuda(cudaMemcpyAsync(device, host, elements * sizeof(float), cudaMemcpyHostToDevice,
                                     resources_->stream.get()),
                     where_, fmt::format("cudaMemcpyAsync({} bytes to the device)", elements * sizeof(float)));
  }

  float* upload(GrowingDeviceBuffer& buffer, const float* host, std::size_t elements) const {
    float* device = reserve(buffer, elements);
    copy_to_device(device, host, elements);
    return device;
  }

  // Copies the result back and waits for the call to finish.
  void download(float* host, const float* device, std::size_t elements) const {
    cuda::check_cuda(cudaMemcpyAsync(host, device, elements * sizeof(float), cudaMemcpyDeviceToHost,
                                     resources_->stream.get()),
                     where_, fmt::format("cudaMemcpyAsync({} bytes to the host)", elements * sizeof(float)));
    cuda::check_cuda(cudaStreamSynchronize(resources_->stream.get()), where_, "cudaStreamSynchronize");
  }

  void set_tensor(const TensorDescriptor& descriptor, const std::array<int, 4>& nchw) const {
    check_cudnn(cudnnSetTensor4dDescriptor(descriptor.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, nchw[0], nchw[1],
                                           nchw[2], nchw[3]),
                where_, fmt::format("cudnnSetTensor4dDescriptor({}x{}x{}x{})", nchw[0], nchw[1], nchw[2], nchw[3]));
  }

  void set_flat_descriptor(const TensorDescriptor& descriptor, std::size_t count) const {
    if (count > static_cast<std::size_t>(INT_MAX))
      throw std::invalid_argument(fmt::format("gpu compute: {} elements in one tensor; cuDNN takes at most {}", count,
                                              INT_MAX));
    set_tensor(descriptor, {1, 1, 1, static_cast<int>(count)});
  }

  void set_conv_descriptors(const ConvProblem& p) const {
    const ConvDescriptors d = conv_descriptors(p);
    DeviceResources& r = *resources_;
    set_tensor(r.x_desc, d.input);
    set_tensor(r.y_desc, d.output);
    check_cudnn(cudnnSetFilter4dDescriptor(r.w_desc.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, d.filter[0],
                                           d.filter[1], d.filter[2], d.filter[3]),
                where_, "cudnnSetFilter4dDescriptor");
    check_cudnn(cudnnSetConvolution2dDescriptor(r.conv_desc.get(), d.pad_h, d.pad_w, d.stride_h, d.stride_w,
                                                d.dilation_h, d.dilation_w, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT),
                where_, "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionMathType(r.conv_desc.get(), CUDNN_FMA_MATH), where_,
                "cudnnSetConvolutionMathType(CUDNN_FMA_MATH)");
    std::array<int, 4> output{};
    check_cudnn(cudnnGetConvolution2dForwardOutputDim(r.conv_desc.get(), r.x_desc.get(), r.w_desc.get(), &output[0],
                                                      &output[1], &output[2], &output[3]),
                where_, "cudnnGetConvolution2dForwardOutputDim");
    if (output != d.output)
      throw std::logic_error(fmt::format("gpu compute: cuDNN's convolution output {}x{}x{}x{} is not the layer's {}x{}x{}x{}",
                                         output[0], output[1], output[2], output[3], d.output[0], d.output[1],
                                         d.output[2], d.output[3]));
  }

  void set_pool_descriptors(const PoolDescriptors& d) const {
    set_tensor(resources_->x_desc, d.input);
    set_tensor(resources_->y_desc, d.output);
  }

  cuda::DeviceContext where_;
  std::unique_ptr<DeviceResources> resources_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Compute> make_gpu_compute(int device) { return std::make_unique<GpuCompute>(device); }

}  // namespace ringlab::training
