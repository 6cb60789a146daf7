// Relu, MaxPool2x2, Flatten and FullyConnected (see layers.hpp for the steps).
#include <fmt/format.h>

#include <stdexcept>

#include "layers.hpp"

namespace ringlab::training {

void Relu::forward(const Compute& /*compute*/, const Tensor& input, Tensor& output) {
  output.resize(input.shape);
  for (std::size_t i = 0; i < input.data.size(); ++i) output.data[i] = input.data[i] > 0.0f ? input.data[i] : 0.0f;
}

void Relu::backward(const Compute& /*compute*/, const Tensor& input, const Tensor& output,
                    const Tensor& grad_output, Tensor* grad_input) {
  if (!grad_input) return;
  grad_input->resize(input.shape);
  for (std::size_t i = 0; i < output.data.size(); ++i)
    grad_input->data[i] = output.data[i] > 0.0f ? grad_output.data[i] : 0.0f;
}

void MaxPool2x2::forward(const Compute& /*compute*/, const Tensor& input, Tensor& output) {
  const Shape in = input.shape;
  output.resize(output_shape(in));
  argmax_.resize(output.data.size());
  std::size_t o = 0;
  for (int nc = 0; nc < in.n * in.c; ++nc) {
    const int plane = nc * in.h * in.w;
    for (int y = 0; y < output.shape.h; ++y)
      for (int x = 0; x < output.shape.w; ++x, ++o) {
        int best = plane + (2 * y) * in.w + 2 * x;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) {
            const int index = plane + (2 * y + dy) * in.w + 2 * x + dx;
            if (input.data[index] > input.data[best]) best = index;
          }
        argmax_[o] = best;
        output.data[o] = input.data[best];
      }
  }
}

void MaxPool2x2::backward(const Compute& /*compute*/, const Tensor& input, const Tensor& /*output*/,
                          const Tensor& grad_output, Tensor* grad_input) {
  if (!grad_input) return;
  grad_input->resize(input.shape);
  std::fill(grad_input->data.begin(), grad_input->data.end(), 0.0f);
  for (std::size_t o = 0; o < grad_output.data.size(); ++o) grad_input->data[argmax_[o]] += grad_output.data[o];
}

void Flatten::forward(const Compute& /*compute*/, const Tensor& input, Tensor& output) {
  output.shape = output_shape(input.shape);
  output.data = input.data;
}

void Flatten::backward(const Compute& /*compute*/, const Tensor& input, const Tensor& /*output*/,
                       const Tensor& grad_output, Tensor* grad_input) {
  if (!grad_input) return;
  grad_input->shape = input.shape;
  grad_input->data = grad_output.data;
}

FullyConnected::FullyConnected(int inputs, int outputs, int first_row, InitKey init)
    : inputs_(inputs), outputs_(outputs) {
  const std::size_t in = static_cast<std::size_t>(inputs);
  weight_.value.resize(static_cast<std::size_t>(outputs) * in);
  weight_.grad.assign(weight_.value.size(), 0.0f);
  const float bound = he_bound(in);
  const std::size_t offset = static_cast<std::size_t>(first_row) * in;
  for (std::size_t i = 0; i < weight_.value.size(); ++i) weight_.value[i] = uniform_init(init, offset + i, bound);
}

std::string FullyConnected::name() const { return fmt::format("fc {}->{}", inputs_, outputs_); }

double FullyConnected::forward_macs_per_sample(const Shape& /*input*/) const {
  return static_cast<double>(weight_.value.size());
}

void FullyConnected::forward(const Compute& compute, const Tensor& input, Tensor& output) {
  if (input.shape.per_sample() != static_cast<std::size_t>(inputs_))
    throw std::invalid_argument(fmt::format("{}: input has {} features", name(), input.shape.per_sample()));
  output.resize(output_shape(input.shape));
  compute.gemm(Transpose::no, Transpose::yes, input.shape.n, outputs_, inputs_, 1.0f, input.data.data(),
               weight_.value.data(), 0.0f, output.data.data());
}

void FullyConnected::backward(const Compute& compute, const Tensor& input, const Tensor& /*output*/,
                              const Tensor& grad_output, Tensor* grad_input) {
  const int n = input.shape.n;
  compute.gemm(Transpose::yes, Transpose::no, outputs_, inputs_, n, 1.0f, grad_output.data.data(),
               input.data.data(), 0.0f, weight_.grad.data());
  if (!grad_input) return;
  grad_input->resize(input.shape);
  compute.gemm(Transpose::no, Transpose::no, n, inputs_, outputs_, 1.0f, grad_output.data.data(),
               weight_.value.data(), 0.0f, grad_input->data.data());
}

}  // namespace ringlab::training
