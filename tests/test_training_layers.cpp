// Gradient checks: every layer's backward against central finite differences of its forward.
// The probe loss is L = sum(y * R) for a fixed random R, accumulated in double; the layers run
// in float32. Linear layers (conv, fc, bias) use step 1e-2: their central difference is exact
// up to float32 rounding of the outputs (~1e-7 relative, / 2e-2 -> ~1e-5). ReLU and max-pool get
// inputs at least 0.05 away from their kinks, so a step of 1e-2 never crosses one. Tolerance:
// |analytic - numeric| <= 1e-3 * max(1, |analytic|).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <random>

#include "training_harness/compute.hpp"
#include "training_harness/layers.hpp"
#include "training_harness/loss.hpp"
#include "training_harness/model.hpp"
#include "training_harness/sgd.hpp"

namespace ringlab::training {
namespace {

constexpr double tolerance = 1e-3;

std::vector<float> random_values(std::size_t count, std::uint32_t seed, float low, float high) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values) value = distribution(generator);
  return values;
}

// Inputs with |x| in [0.05, 1] and pairwise at least 0.05 apart inside any small window.
std::vector<float> kink_free_values(std::size_t count, std::uint32_t seed) {
  std::vector<float> values(count);
  std::iota(values.begin(), values.end(), 0.0f);
  std::mt19937 generator(seed);
  std::shuffle(values.begin(), values.end(), generator);
  for (float& value : values) value = (value - static_cast<float>(count) / 2.0f + 0.5f) * 0.1f;
  return values;
}

double probe_loss(Layer& layer, const Compute& compute, const Tensor& input, const std::vector<float>& weights) {
  Tensor output;
  layer.forward(compute, input, output);
  double sum = 0.0;
  for (std::size_t i = 0; i < output.data.size(); ++i) sum += static_cast<double>(output.data[i]) * weights[i];
  return sum;
}

void expect_close(double analytic, double numeric, const std::string& what) {
  EXPECT_LE(std::abs(analytic - numeric), tolerance * std::max(1.0, std::abs(analytic)))
      << what << ": analytic " << analytic << ", finite difference " << numeric;
}

// Checks d(probe)/d(input) and d(probe)/d(every parameter) of `layer` at `input`.
void check_layer(Layer& layer, Tensor input, float step) {
  const auto compute = make_cpu_compute();
  Tensor output;
  layer.forward(*compute, input, output);
  const std::vector<float> weights = random_values(output.data.size(), 7, -1.0f, 1.0f);
  Tensor grad_output(output.shape);
  grad_output.data = weights;
  Tensor grad_input;
  layer.backward(*compute, input, output, grad_output, &grad_input);
  ASSERT_EQ(grad_input.data.size(), input.data.size());
  for (std::size_t i = 0; i < input.data.size(); ++i) {
    const float saved = input.data[i];
    input.data[i] = saved + step;
    const double plus = probe_loss(layer, *compute, input, weights);
    input.data[i] = saved - step;
    const double minus = probe_loss(layer, *compute, input, weights);
    input.data[i] = saved;
    expect_close(grad_input.data[i], (plus - minus) / (2.0 * step), layer.name() + " input " + std::to_string(i));
  }
  for (Parameter* parameter : layer.parameters()) {
    const std::vector<float> analytic = parameter->grad;
    for (std::size_t i = 0; i < parameter->value.size(); ++i) {
      const float saved = parameter->value[i];
      parameter->value[i] = saved + step;
      const double plus = probe_loss(layer, *compute, input, weights);
      parameter->value[i] = saved - step;
      const double minus = probe_loss(layer, *compute, input, weights);
      parameter->value[i] = saved;
      expect_close(analytic[i], (plus - minus) / (2.0 * step), layer.name() + " parameter " + std::to_string(i));
    }
  }
}

Tensor make_input(Shape shape, std::vector<float> values) {
  Tensor tensor(shape);
  tensor.data = std::move(values);
  return tensor;
}

TEST(TrainingGradients, Conv2d) {
  Conv2d layer(2, 3, 3, 1, InitKey{3, 0});
  const Shape shape{2, 2, 5, 4};
  check_layer(layer, make_input(shape, random_values(shape.elements(), 1, -1.0f, 1.0f)), 1e-2f);
}

TEST(TrainingGradients, Bias) {
  Bias layer(3);
  layer.parameters()[0]->value = {0.5f, -0.25f, 1.0f};
  const Shape shape{2, 3, 2, 2};
  check_layer(layer, make_input(shape, random_values(shape.elements(), 2, -1.0f, 1.0f)), 1e-2f);
}

TEST(TrainingGradients, Relu) {
  Relu layer;
  const Shape shape{2, 3, 3, 3};
  check_layer(layer, make_input(shape, kink_free_values(shape.elements(), 3)), 1e-2f);
}

TEST(TrainingGradients, MaxPool2x2) {
  MaxPool2x2 layer;
  const Shape shape{2, 2, 5, 6};  // odd height: the last row is dropped
  check_layer(layer, make_input(shape, kink_free_values(shape.elements(), 4)), 1e-2f);
}

TEST(TrainingGradients, Flatten) {
  Flatten layer;
  const Shape shape{3, 2, 2, 2};
  check_layer(layer, make_input(shape, random_values(shape.elements(), 5, -1.0f, 1.0f)), 1e-2f);
}

TEST(TrainingGradients, FullyConnected) {
  FullyConnected layer(7, 5, 0, InitKey{4, 1});
  const Shape shape{3, 7, 1, 1};
  check_layer(layer, make_input(shape, random_values(shape.elements(), 6, -1.0f, 1.0f)), 1e-2f);
}

// Loss = scale * sum of per-sample cross-entropy; its gradient against central differences
// with step 1e-3 (truncation ~ step^2 = 1e-6).
TEST(TrainingGradients, SoftmaxCrossEntropy) {
  const Shape shape{4, 6, 1, 1};
  Tensor logits = make_input(shape, random_values(shape.elements(), 8, -2.0f, 2.0f));
  const std::vector<std::uint8_t> labels = {0, 5, 2, 2};
  const float scale = 0.25f;
  Tensor grad;
  softmax_cross_entropy(logits, labels, scale, grad);
  const float step = 1e-3f;
  for (std::size_t i = 0; i < logits.data.size(); ++i) {
    Tensor scratch;
    const float saved = logits.data[i];
    logits.data[i] = saved + step;
    const double plus = softmax_cross_entropy(logits, labels, scale, scratch).loss_sum * scale;
    logits.data[i] = saved - step;
    const double minus = softmax_cross_entropy(logits, labels, scale, scratch).loss_sum * scale;
    logits.data[i] = saved;
    expect_close(grad.data[i], (plus - minus) / (2.0 * step), "logit " + std::to_string(i));
  }
}

TEST(TrainingGradients, CrossEntropyCountsCorrectAndRefusesBadLabels) {
  Tensor logits = make_input({2, 3, 1, 1}, {3.0f, 1.0f, 0.0f, 0.0f, 0.0f, 5.0f});
  Tensor grad;
  const LossResult result = softmax_cross_entropy(logits, std::vector<std::uint8_t>{0, 1}, 1.0f, grad);
  EXPECT_EQ(result.correct, 1);
  EXPECT_THROW(softmax_cross_entropy(logits, std::vector<std::uint8_t>{0, 3}, 1.0f, grad), std::invalid_argument);
}

// One SGD step by hand: g' = g + wd*w, v = mu*v + g', w -= lr*v, twice.
TEST(TrainingSgd, MomentumAndWeightDecay) {
  Parameter parameter{{1.0f, -2.0f}, {0.5f, 0.25f}};
  Sgd sgd({0.1f, 0.9f, 0.01f});
  sgd.step({&parameter});
  EXPECT_FLOAT_EQ(parameter.value[0], 1.0f - 0.1f * (0.5f + 0.01f));
  const float v0 = 0.5f + 0.01f;
  const float w0 = parameter.value[0];
  sgd.step({&parameter});
  EXPECT_FLOAT_EQ(parameter.value[0], w0 - 0.1f * (0.9f * v0 + 0.5f + 0.01f * w0));
  EXPECT_FLOAT_EQ(parameter.value[1], -2.0f - 0.1f * (0.25f - 0.02f) - 0.1f *
                                                  (0.9f * (0.25f - 0.02f) + 0.25f + 0.01f * (-2.0f - 0.1f * 0.23f)));
}

TEST(TrainingModel, ParsesConfigsAndRefusesUnknownParts) {
  const ModelConfig tiny = parse_model("cifar-vgg,width=2,fc=16");
  EXPECT_EQ(tiny.width, 2);
  EXPECT_EQ(head_widths(tiny), (std::vector<int>{2 * 4 * 4 * 4, 16, 16, 10}));
  const ModelConfig full = parse_model("cifar-vgg");
  EXPECT_EQ(backbone_features(full), 4096);
  const ModelConfig mini = parse_model("mini-imagenet-vgg");
  EXPECT_EQ(mini.image_size, 84);
  EXPECT_EQ(head_widths(mini).back(), 100);
  EXPECT_EQ(backbone_features(mini), 256 * 10 * 10);
  EXPECT_THROW(parse_model("resnet"), std::invalid_argument);
  EXPECT_THROW(parse_model("cifar-vgg,depth=3"), std::invalid_argument);
  EXPECT_THROW(parse_model("cifar-vgg,width=0"), std::invalid_argument);
  const auto compute = make_cpu_compute();
  Sequential model = build_backbone(tiny, 1);
  append_full_head(model, tiny, 1);
  Tensor images(tiny.input_shape(2));
  EXPECT_EQ(model.forward(*compute, images).shape, (Shape{2, 10, 1, 1}));
}

}  // namespace
}  // namespace ringlab::training
