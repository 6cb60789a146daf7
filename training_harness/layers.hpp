// Layers with forward and backward passes (float32, NCHW, host memory); the kernels run on the
// Compute they are given (compute.hpp: the CPU reference or the GPU backend). Each layer
// reads its input, writes its output, and in backward overwrites its parameter gradients and,
// when asked, the gradient of its input. The caller keeps the activations (Sequential).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "training_harness/compute.hpp"
#include "training_harness/init.hpp"
#include "training_harness/tensor.hpp"

namespace ringlab::training {

class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string name() const = 0;
  virtual Shape output_shape(const Shape& input) const = 0;
  virtual void forward(const Compute& compute, const Tensor& input, Tensor& output) = 0;
  // grad_input may be null (the first layer needs no input gradient).
  virtual void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                        Tensor* grad_input) = 0;
  virtual std::vector<Parameter*> parameters() { return {}; }
  // Multiply-adds of forward for one sample (backward is about twice this).
  virtual double forward_macs_per_sample(const Shape& /*input*/) const { return 0.0; }
};

// 3x3 (or k x k) convolution, stride 1, zero padding, no bias: Compute::conv_forward, and in
// backward conv_backward_filter (dW) then, when asked, conv_backward_data (dX). On the CPU that
// is im2col + GEMM per image (cpu_compute.cpp), on the GPU cuDNN.
class Conv2d final : public Layer {
 public:
  Conv2d(int in_channels, int out_channels, int kernel, int padding, InitKey init);
  std::string name() const override;
  Shape output_shape(const Shape& input) const override;
  void forward(const Compute& compute, const Tensor& input, Tensor& output) override;
  void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                Tensor* grad_input) override;
  std::vector<Parameter*> parameters() override { return {&weight_}; }
  double forward_macs_per_sample(const Shape& input) const override;

 private:
  ConvGeometry geometry(const Shape& input) const;
  int in_channels_, out_channels_, kernel_, padding_;
  Parameter weight_;
};

// Adds one value per channel: y = x + b[c]; db[c] = sum over samples and pixels of dy; dx = dy.
class Bias final : public Layer {
 public:
  explicit Bias(int channels);
  std::string name() const override { return "bias"; }
  Shape output_shape(const Shape& input) const override { return input; }
  void forward(const Compute& compute, const Tensor& input, Tensor& output) override;
  void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                Tensor* grad_input) override;
  std::vector<Parameter*> parameters() override { return {&bias_}; }

 private:
  Parameter bias_;
};

// y = max(x, 0); dx = dy where y > 0.
class Relu final : public Layer {
 public:
  std::string name() const override { return "relu"; }
  Shape output_shape(const Shape& input) const override { return input; }
  void forward(const Compute& compute, const Tensor& input, Tensor& output) override;
  void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                Tensor* grad_input) override;
};

// 2x2 max-pool, stride 2 (odd edges dropped); backward routes dy to the argmax of each window
// (Compute::max_pool_forward / max_pool_backward).
class MaxPool2x2 final : public Layer {
 public:
  std::string name() const override { return "maxpool2x2"; }
  Shape output_shape(const Shape& input) const override { return {input.n, input.c, input.h / 2, input.w / 2}; }
  void forward(const Compute& compute, const Tensor& input, Tensor& output) override;
  void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                Tensor* grad_input) override;
};

// NCHW -> {n, c*h*w, 1, 1}; the data is unchanged.
class Flatten final : public Layer {
 public:
  std::string name() const override { return "flatten"; }
  Shape output_shape(const Shape& input) const override {
    return {input.n, static_cast<int>(input.per_sample()), 1, 1};
  }
  void forward(const Compute& compute, const Tensor& input, Tensor& output) override;
  void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                Tensor* grad_input) override;
};

// Fully connected without bias: Y[n, out] = X[n, in] * W^T, W is [out, in]; dW = dY^T X,
// dX = dY W. `first_row` is the global index of this layer's first output neuron: a rank holding
// rows [first_row, first_row + out) of a split layer gets the same initial values as the whole
// layer (init index = global row * in + column).
class FullyConnected final : public Layer {
 public:
  FullyConnected(int inputs, int outputs, int first_row, InitKey init);
  std::string name() const override;
  Shape output_shape(const Shape& input) const override { return {input.n, outputs_, 1, 1}; }
  void forward(const Compute& compute, const Tensor& input, Tensor& output) override;
  void backward(const Compute& compute, const Tensor& input, const Tensor& output, const Tensor& grad_output,
                Tensor* grad_input) override;
  std::vector<Parameter*> parameters() override { return {&weight_}; }
  double forward_macs_per_sample(const Shape& input) const override;

 private:
  int inputs_, outputs_;
  Parameter weight_;
};

}  // namespace ringlab::training
