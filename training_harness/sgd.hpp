// SGD with momentum and weight decay (PyTorch's form): g' = g + wd * w; v = mu * v + g';
// w -= lr * v. One velocity buffer per parameter, created on first use.
#pragma once

#include <vector>

#include "training_harness/tensor.hpp"

namespace ringlab::training {

struct SgdOptions {
  // 0.005: at 0.01 the VGG-style models (momentum 0.9, no normalisation layers) diverged in one of
  // two 150-step runs at N = 4 (docs/training.md, "Accuracy"); at 0.005 and 0.002 none did.
  float learning_rate = 0.005f;
  float momentum = 0.9f;
  float weight_decay = 5e-4f;
};

class Sgd {
 public:
  explicit Sgd(SgdOptions options) : options_(options) {}
  // `parameters` must be the same list, in the same order, on every call.
  void step(const std::vector<Parameter*>& parameters);

 private:
  SgdOptions options_;
  std::vector<std::vector<float>> velocity_;
};

}  // namespace ringlab::training
