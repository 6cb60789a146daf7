// Conv2d and Bias (see layers.hpp for the steps).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "training_harness/layers.hpp"

namespace ringlab::training {

Conv2d::Conv2d(int in_channels, int out_channels, int kernel, int padding, InitKey init)
    : in_channels_(in_channels), out_channels_(out_channels), kernel_(kernel), padding_(padding) {
  const std::size_t fan_in = static_cast<std::size_t>(in_channels) * static_cast<std::size_t>(kernel * kernel);
  weight_.value.resize(static_cast<std::size_t>(out_channels) * fan_in);
  weight_.grad.assign(weight_.value.size(), 0.0f);
  const float bound = he_bound(fan_in);
  for (std::size_t i = 0; i < weight_.value.size(); ++i) weight_.value[i] = uniform_init(init, i, bound);
}

std::string Conv2d::name() const {
  return fmt::format("conv{}x{} {}->{}", kernel_, kernel_, in_channels_, out_channels_);
}

ConvGeometry Conv2d::geometry(const Shape& input) const {
  if (input.c != in_channels_)
    throw std::invalid_argument(fmt::format("{}: input has {} channels", name(), input.c));
  return {input.c, input.h, input.w, kernel_, padding_};
}

Shape Conv2d::output_shape(const Shape& input) const {
  const ConvGeometry g = geometry(input);
  return {input.n, out_channels_, g.out_height(), g.out_width()};
}

double Conv2d::forward_macs_per_sample(const Shape& input) const {
  const Shape out = output_shape(input);
  return static_cast<double>(weight_.value.size()) * out.h * out.w;
}

void Conv2d::forward(const Compute& compute, const Tensor& input, Tensor& output) {
  const ConvProblem problem{geometry(input.shape), input.shape.n, out_channels_};
  output.resize(output_shape(input.shape));
  compute.conv_forward(problem, input.data.data(), weight_.value.data(), output.data.data());
}

void Conv2d::backward(const Compute& compute, const Tensor& input, const Tensor& /*output*/,
                      const Tensor& grad_output, Tensor* grad_input) {
  const ConvProblem problem{geometry(input.shape), input.shape.n, out_channels_};
  compute.conv_backward_filter(problem, input.data.data(), grad_output.data.data(), weight_.grad.data());
  if (!grad_input) return;
  grad_input->resize(input.shape);
  compute.conv_backward_data(problem, weight_.value.data(), grad_output.data.data(), grad_input->data.data());
}

Bias::Bias(int channels) {
  bias_.value.assign(static_cast<std::size_t>(channels), 0.0f);
  bias_.grad.assign(bias_.value.size(), 0.0f);
}

void Bias::forward(const Compute& /*compute*/, const Tensor& input, Tensor& output) {
  if (static_cast<std::size_t>(input.shape.c) != bias_.value.size())
    throw std::invalid_argument(fmt::format("bias of {} channels got {} channels", bias_.value.size(), input.shape.c));
  output.resize(input.shape);
  const std::size_t plane = static_cast<std::size_t>(input.shape.h * input.shape.w);
  std::size_t i = 0;
  for (int n = 0; n < input.shape.n; ++n)
    for (int c = 0; c < input.shape.c; ++c)
      for (std::size_t p = 0; p < plane; ++p, ++i) output.data[i] = input.data[i] + bias_.value[c];
}

void Bias::backward(const Compute& /*compute*/, const Tensor& input, const Tensor& /*output*/,
                    const Tensor& grad_output, Tensor* grad_input) {
  const std::size_t plane = static_cast<std::size_t>(input.shape.h * input.shape.w);
  std::vector<double> sums(bias_.value.size(), 0.0);
  std::size_t i = 0;
  for (int n = 0; n < input.shape.n; ++n)
    for (int c = 0; c < input.shape.c; ++c)
      for (std::size_t p = 0; p < plane; ++p, ++i) sums[c] += grad_output.data[i];
  for (std::size_t c = 0; c < sums.size(); ++c) bias_.grad[c] = static_cast<float>(sums[c]);
  if (grad_input) *grad_input = grad_output;
}

}  // namespace ringlab::training
