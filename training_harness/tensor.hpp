// Activations and gradients: a float32 NCHW array with its shape. Fully connected layers use
// shape {n, features, 1, 1}.
#pragma once

#include <cstddef>
#include <vector>

namespace ringlab::training {

struct Shape {
  int n = 0;  // samples
  int c = 0;  // channels (features for fully connected layers)
  int h = 1;
  int w = 1;
  std::size_t elements() const {
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(c) * static_cast<std::size_t>(h) *
           static_cast<std::size_t>(w);
  }
  std::size_t per_sample() const { return static_cast<std::size_t>(c) * static_cast<std::size_t>(h * w); }
  bool operator==(const Shape&) const = default;
};

struct Tensor {
  Shape shape;
  std::vector<float> data;

  Tensor() = default;
  explicit Tensor(Shape s) : shape(s), data(s.elements(), 0.0f) {}
  // Reshapes, keeping the allocation when it is large enough.
  void resize(Shape s) {
    shape = s;
    data.resize(s.elements());
  }
  float* sample(int index) { return data.data() + static_cast<std::size_t>(index) * shape.per_sample(); }
  const float* sample(int index) const { return data.data() + static_cast<std::size_t>(index) * shape.per_sample(); }
};

// A trainable array and its gradient, as the optimizer and the gradient all-reduce see it.
struct Parameter {
  std::vector<float> value;
  std::vector<float> grad;
};

}  // namespace ringlab::training
