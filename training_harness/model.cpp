#include "training_harness/model.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace ringlab::training {

namespace {

constexpr int stage_multipliers[] = {1, 2, 4};

int parse_positive(std::string_view key, std::string_view value) {
  int result = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (error != std::errc{} || end != value.data() + value.size() || result < 1 || result > 65536)
    throw std::invalid_argument(fmt::format("model parameter {}={}: expected an integer in [1, 65536]", key, value));
  return result;
}

}  // namespace

std::string ModelConfig::describe() const { return fmt::format("{},width={},fc={}", name, width, fc_hidden); }

ModelConfig parse_model(std::string_view text) {
  const std::size_t comma = text.find(',');
  const std::string_view name = text.substr(0, comma);
  ModelConfig config;
  if (name == "cifar-vgg") {
    config = ModelConfig{};
  } else if (name == "mini-imagenet-vgg") {
    config.name = "mini-imagenet-vgg";
    config.image_size = 84;
    config.classes = 100;
  } else {
    throw std::invalid_argument(
        fmt::format("unknown model '{}'; valid models: cifar-vgg, mini-imagenet-vgg (with ,width=K and ,fc=H)", name));
  }
  std::string_view rest = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find(',');
    const std::string_view item = rest.substr(0, next);
    rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
    const std::size_t equals = item.find('=');
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = equals == std::string_view::npos ? std::string_view{} : item.substr(equals + 1);
    if (key == "width")
      config.width = parse_positive(key, value);
    else if (key == "fc")
      config.fc_hidden = parse_positive(key, value);
    else
      throw std::invalid_argument(
          fmt::format("model '{}': unknown parameter '{}'; valid parameters: width, fc", text, item));
  }
  return config;
}

Sequential build_backbone(const ModelConfig& config, std::uint64_t seed) {
  Sequential model;
  int channels = config.channels;
  std::uint64_t layer_id = 0;
  for (int multiplier : stage_multipliers) {
    const int out = config.width * multiplier;
    for (int conv = 0; conv < 2; ++conv) {
      model.add(std::make_unique<Conv2d>(channels, out, 3, 1, InitKey{seed, layer_id++}));
      model.add(std::make_unique<Bias>(out));
      model.add(std::make_unique<Relu>());
      channels = out;
    }
    model.add(std::make_unique<MaxPool2x2>());
  }
  model.add(std::make_unique<Flatten>());
  return model;
}

int backbone_features(const ModelConfig& config) {
  int size = config.image_size;
  for (std::size_t stage = 0; stage < std::size(stage_multipliers); ++stage) size /= 2;
  return config.width * stage_multipliers[std::size(stage_multipliers) - 1] * size * size;
}

std::vector<int> head_widths(const ModelConfig& config) {
  return {backbone_features(config), config.fc_hidden, config.fc_hidden, config.classes};
}

InitKey head_init_key(std::uint64_t seed, int head_layer) {
  return InitKey{seed, 100 + static_cast<std::uint64_t>(head_layer)};
}

void append_full_head(Sequential& model, const ModelConfig& config, std::uint64_t seed) {
  const std::vector<int> widths = head_widths(config);
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    model.add(std::make_unique<FullyConnected>(widths[l], widths[l + 1], 0, head_init_key(seed, static_cast<int>(l))));
    model.add(std::make_unique<Bias>(widths[l + 1]));
    if (l + 2 < widths.size()) model.add(std::make_unique<Relu>());
  }
}

}  // namespace ringlab::training
