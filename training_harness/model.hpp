// The models: a VGG-style backbone (three stages of two 3x3 conv + bias + ReLU layers and a 2x2
// max-pool; widths w, 2w, 4w channels) then flatten, and a fully connected head
// features -> fc -> fc -> classes with ReLU between (Krizhevsky's large-head CIFAR setting).
//   cifar-vgg          32x32x3 input, 10 classes, width 64, fc 4096 (features 4w*4*4 = 4096)
//   mini-imagenet-vgg  84x84x3 input, 100 classes, width 64, fc 4096 (features 4w*10*10)
// Parameters: "NAME[,width=K][,fc=H]"; tests use e.g. "cifar-vgg,width=2,fc=32".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "training_harness/sequential.hpp"

namespace ringlab::training {

struct ModelConfig {
  std::string name = "cifar-vgg";
  int image_size = 32;  // square images
  int channels = 3;
  int classes = 10;
  int width = 64;       // channels of the first stage
  int fc_hidden = 4096;
  std::string describe() const;  // "cifar-vgg,width=64,fc=4096"
  Shape input_shape(int batch) const { return {batch, channels, image_size, image_size}; }
};

// Throws std::invalid_argument naming the bad part and the valid choices.
ModelConfig parse_model(std::string_view text);

// Conv layers 0..5 take init layer ids 0..5; head layer l takes 100 + l.
Sequential build_backbone(const ModelConfig& config, std::uint64_t seed);
// Feature count the backbone hands to the head.
int backbone_features(const ModelConfig& config);
// The head's layer widths: {features, fc, fc, classes}.
std::vector<int> head_widths(const ModelConfig& config);
// Appends the whole head (fc + bias [+ relu]) for every head layer, rows [0, out).
void append_full_head(Sequential& model, const ModelConfig& config, std::uint64_t seed);
InitKey head_init_key(std::uint64_t seed, int head_layer);

}  // namespace ringlab::training
