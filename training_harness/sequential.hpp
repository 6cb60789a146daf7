// A chain of layers that keeps every activation for the backward pass.
#pragma once

#include <memory>
#include <vector>

#include "training_harness/layers.hpp"

namespace ringlab::training {

class Sequential {
 public:
  void add(std::unique_ptr<Layer> layer) { layers_.push_back(std::move(layer)); }
  // Runs every layer; returns the last activation (valid until the next forward).
  const Tensor& forward(const Compute& compute, const Tensor& input);
  // Back through every layer from the loss gradient of the output; returns the input gradient
  // when `want_input_gradient`, else an empty tensor.
  const Tensor& backward(const Compute& compute, const Tensor& grad_output, bool want_input_gradient);
  std::vector<Parameter*> parameters();
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }
  Shape output_shape(Shape input) const;
  double forward_macs_per_sample(Shape input) const;

 private:
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Tensor> activations_;  // [0] = input, [i + 1] = output of layer i
  Tensor grad_a_, grad_b_;
};

}  // namespace ringlab::training
