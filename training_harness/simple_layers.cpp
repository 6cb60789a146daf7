// Relu, MaxPool2x2, Flatten and FullyConnected (see layers.hpp for the steps).
#include <fmt/format.h>

#include <stdexcept>

#include "training_harness/layers.hpp"

namespace ringlab::training {

void Relu::forward(const Compute& compute, const Tensor& input, Tensor& output) {
  output.resize(input.shape);
  compute.relu_forward(input.data.size(), input.data.data(), output.data.data());
}

void Relu::backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                    Tensor* grad_input) {
  if (!grad_input) return;
  grad_input->resize(input.shape);
  compute.relu_backward(output.data.size(), output.data.data(), grad_output.data.data(), grad_input->data.data());
}

void MaxPool2x2::forward(const Compute& compute, const Tensor& input, Tensor& output) {
  output.resize(output_shape(input.shape));
  compute.max_pool_forward(input.shape, input.data.data(), output.data.data());
}

void MaxPool2x2::backward(const Compute& compute, const Tensor& input, const Tensor& output,
                          const Tensor& grad_output, Tensor* grad_input) {
  if (!grad_input) return;
  grad_input->resize(input.shape);
  compute.max_pool_backward(input.shape, input.data.data(), output.data.data(), grad_output.data.data(),
                            grad_input->data.data());
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
