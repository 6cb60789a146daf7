#include "training_harness/loss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ringlab::training {

LossResult softmax_cross_entropy(const Tensor& logits, std::span<const std::uint8_t> labels, float scale,
                                 Tensor& grad_logits) {
  const int n = logits.shape.n;
  const int classes = static_cast<int>(logits.shape.per_sample());
  if (labels.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument(fmt::format("{} labels for {} samples", labels.size(), n));
  grad_logits.resize(logits.shape);
  LossResult result;
  for (int i = 0; i < n; ++i) {
    const float* z = logits.sample(i);
    float* dz = grad_logits.sample(i);
    const int label = labels[i];
    if (label >= classes) throw std::invalid_argument(fmt::format("label {} but {} classes", label, classes));
    const float largest = *std::max_element(z, z + classes);
    double total = 0.0;
    for (int c = 0; c < classes; ++c) total += std::exp(static_cast<double>(z[c] - largest));
    for (int c = 0; c < classes; ++c) {
      const double p = std::exp(static_cast<double>(z[c] - largest)) / total;
      dz[c] = static_cast<float>((p - (c == label ? 1.0 : 0.0)) * scale);
    }
    result.loss_sum += std::log(total) - static_cast<double>(z[label] - largest);
    if (std::max_element(z, z + classes) - z == label) ++result.correct;
  }
  return result;
}

}  // namespace ringlab::training
