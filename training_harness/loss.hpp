// Softmax cross-entropy on logits [n, classes]: p = softmax(z) (max-shifted), loss = -log p[label],
// dz = (p - onehot(label)) * scale. The caller passes scale = 1 / global batch so that gradients
// summed over ranks are the gradient of the global mean loss.
#pragma once

#include <cstdint>
#include <span>

#include "training_harness/tensor.hpp"

namespace ringlab::training {

struct LossResult {
  double loss_sum = 0.0;   // sum over the samples of -log p[label]
  std::int64_t correct = 0;  // samples whose largest logit is the label
};

LossResult softmax_cross_entropy(const Tensor& logits, std::span<const std::uint8_t> labels, float scale,
                                 Tensor& grad_logits);

}  // namespace ringlab::training
