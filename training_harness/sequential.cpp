#include "training_harness/sequential.hpp"

namespace ringlab::training {

const Tensor& Sequential::forward(const Compute& compute, const Tensor& input) {
  activations_.resize(layers_.size() + 1);
  activations_[0] = input;
  for (std::size_t i = 0; i < layers_.size(); ++i) layers_[i]->forward(compute, activations_[i], activations_[i + 1]);
  return activations_.back();
}

const Tensor& Sequential::backward(const Compute& compute, const Tensor& grad_output, bool want_input_gradient) {
  grad_a_ = grad_output;
  for (std::size_t i = layers_.size(); i-- > 0;) {
    const bool need_input = i > 0 || want_input_gradient;
    layers_[i]->backward(compute, activations_[i], activations_[i + 1], grad_a_, need_input ? &grad_b_ : nullptr);
    std::swap(grad_a_, grad_b_);
  }
  if (!want_input_gradient) grad_a_ = Tensor{};
  return grad_a_;
}

std::vector<Parameter*> Sequential::parameters() {
  std::vector<Parameter*> all;
  for (const auto& layer : layers_)
    for (Parameter* parameter : layer->parameters()) all.push_back(parameter);
  return all;
}

Shape Sequential::output_shape(Shape input) const {
  for (const auto& layer : layers_) input = layer->output_shape(input);
  return input;
}

double Sequential::forward_macs_per_sample(Shape input) const {
  double macs = 0.0;
  for (const auto& layer : layers_) {
    macs += layer->forward_macs_per_sample(input);
    input = layer->output_shape(input);
  }
  return macs;
}

}  // namespace ringlab::training
