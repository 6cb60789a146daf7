#include "workload/workload.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <numeric>
#include <stdexcept>

namespace ringlab::training {

namespace {

// Tracks the activation shape while layers are appended; every output shape and count follows
// from (kernel, stride, padding, channels).
class WorkloadBuilder {
 public:
  WorkloadBuilder(std::string name, int image_size, int classes) {
    workload_.name = std::move(name);
    workload_.image_size = image_size;
    workload_.classes = classes;
    channels_ = 3;
    height_ = width_ = image_size;
  }

  struct ConvSpec {
    int out_channels = 0, kernel = 3, stride = 1, padding = 1;
    bool batch_norm = false;  // BN scale and shift instead of a bias
  };

  void conv(const std::string& name, ConvSpec spec) {
    WorkloadLayer layer = start(name, WorkloadLayerKind::conv, spec.kernel, spec.stride, spec.padding);
    layer.out_channels = spec.out_channels;
    const std::int64_t weights = static_cast<std::int64_t>(spec.out_channels) * layer.in_channels * spec.kernel * spec.kernel;
    layer.parameter_tensors = {weights};
    if (spec.batch_norm)
      layer.parameter_tensors.insert(layer.parameter_tensors.end(), {spec.out_channels, spec.out_channels});
    else
      layer.parameter_tensors.push_back(spec.out_channels);
    layer.forward_macs_per_sample = static_cast<double>(weights) * layer.out_height * layer.out_width;
    finish(std::move(layer));
  }

  void max_pool(const std::string& name, int kernel, int stride, int padding = 0) {
    WorkloadLayer layer = start(name, WorkloadLayerKind::pool, kernel, stride, padding);
    layer.out_channels = layer.in_channels;
    finish(std::move(layer));
  }

  // Flattens the current activation and appends a head layer with `outputs` neurons and a bias.
  void fc(const std::string& name, int outputs) {
    const int inputs = channels_ * height_ * width_;
    channels_ = inputs;
    height_ = width_ = 1;
    WorkloadLayer layer = start(name, WorkloadLayerKind::fc, 1, 1, 0);
    layer.out_channels = outputs;
    layer.head = true;
    layer.parameter_tensors = {static_cast<std::int64_t>(outputs) * inputs, outputs};
    layer.forward_macs_per_sample = static_cast<double>(outputs) * inputs;
    finish(std::move(layer));
  }

  // A global average pool folded into the previous layer: the activation becomes 1x1.
  void global_average_pool() { height_ = width_ = 1; }

  int channels() const { return channels_; }
  int height() const { return height_; }
  void set_shape(int channels, int height, int width) {
    channels_ = channels;
    height_ = height;
    width_ = width;
  }
  Workload take() { return std::move(workload_); }

 private:
  WorkloadLayer start(const std::string& name, WorkloadLayerKind kind, int kernel, int stride, int padding) const {
    WorkloadLayer layer;
    layer.name = name;
    layer.kind = kind;
    layer.in_channels = channels_;
    layer.in_height = height_;
    layer.in_width = width_;
    layer.kernel = kernel;
    layer.stride = stride;
    layer.padding = padding;
    layer.out_height = (height_ + 2 * padding - kernel) / stride + 1;
    layer.out_width = (width_ + 2 * padding - kernel) / stride + 1;
    if (layer.out_height < 1 || layer.out_width < 1)
      throw std::logic_error(fmt::format("workload {}: layer {} has an empty output", workload_.name, name));
    return layer;
  }
  void finish(WorkloadLayer layer) {
    set_shape(layer.out_channels, layer.out_height, layer.out_width);
    workload_.layers.push_back(std::move(layer));
  }

  Workload workload_;
  int channels_ = 0, height_ = 0, width_ = 0;
};

// VGG-16 (configuration D of Simonyan and Zisserman): 13 3x3 convs in 5 stages of 2, 2, 3, 3, 3
// layers with 64..512 channels, a 2x2 max-pool after each stage, then fc 4096, 4096, classes on
// the flattened features (no adaptive pool: at 84x84 the features are 512 x 2 x 2 = 2048).
Workload make_vgg16(const std::string& name, int image_size, int classes) {
  WorkloadBuilder b(name, image_size, classes);
  const int stage_layers[] = {2, 2, 3, 3, 3};
  const int stage_channels[] = {64, 128, 256, 512, 512};
  for (int stage = 0; stage < 5; ++stage) {
    for (int l = 0; l < stage_layers[stage]; ++l)
      b.conv(fmt::format("conv{}_{}", stage + 1, l + 1), {stage_channels[stage], 3, 1, 1});
    b.max_pool(fmt::format("pool{}", stage + 1), 2, 2);
  }
  b.fc("fc6", 4096);
  b.fc("fc7", 4096);
  b.fc("fc8", classes);
  return b.take();
}

// torchvision's AlexNet (one tower): conv 11x11/4 64, pool 3/2, conv 5x5 192, pool, conv 3x3 384,
// 256, 256, pool (6x6x256 at 224x224), fc 4096, 4096, classes.
Workload make_alexnet(const std::string& name, int image_size, int classes) {
  WorkloadBuilder b(name, image_size, classes);
  b.conv("conv1", {64, 11, 4, 2});
  b.max_pool("pool1", 3, 2);
  b.conv("conv2", {192, 5, 1, 2});
  b.max_pool("pool2", 3, 2);
  b.conv("conv3", {384, 3, 1, 1});
  b.conv("conv4", {256, 3, 1, 1});
  b.conv("conv5", {256, 3, 1, 1});
  b.max_pool("pool5", 3, 2);
  b.fc("fc6", 4096);
  b.fc("fc7", 4096);
  b.fc("fc8", classes);
  return b.take();
}

// torchvision's ResNet-50 (v1.5: the stride on the 3x3 conv): conv 7x7/2 64 + BN, max-pool 3/2,
// then 3, 4, 6, 3 bottleneck blocks (1x1 w, 3x3 w, 1x1 4w, each with BN; a 1x1 projection with BN
// on the first block of a stage), global average pool, one fc 2048 -> classes. Convs have no bias.
Workload make_resnet50(const std::string& name, int image_size, int classes) {
  WorkloadBuilder b(name, image_size, classes);
  b.conv("conv1", {64, 7, 2, 3, true});
  b.max_pool("pool1", 3, 2, 1);
  const int blocks[] = {3, 4, 6, 3};
  const int widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < blocks[stage]; ++block) {
      const int stride = (stage > 0 && block == 0) ? 2 : 1;
      const int in_channels = b.channels(), in_size = b.height();
      const std::string prefix = fmt::format("layer{}.{}", stage + 1, block);
      b.conv(prefix + ".conv1", {widths[stage], 1, 1, 0, true});
      b.conv(prefix + ".conv2", {widths[stage], 3, stride, 1, true});
      b.conv(prefix + ".conv3", {4 * widths[stage], 1, 1, 0, true});
      if (block == 0) {
        const int out_channels = b.channels(), out_size = b.height();
        b.set_shape(in_channels, in_size, in_size);  // the projection reads the block's input
        b.conv(prefix + ".downsample", {4 * widths[stage], 1, stride, 0, true});
        b.set_shape(out_channels, out_size, out_size);
      }
    }
  }
  b.global_average_pool();
  b.fc("fc", classes);
  return b.take();
}

}  // namespace

std::int64_t WorkloadLayer::parameters() const {
  return std::accumulate(parameter_tensors.begin(), parameter_tensors.end(), std::int64_t{0});
}

std::int64_t Workload::backbone_parameters() const {
  std::int64_t total = 0;
  for (const WorkloadLayer& layer : layers)
    if (!layer.head) total += layer.parameters();
  return total;
}

std::int64_t Workload::head_parameters() const {
  std::int64_t total = 0;
  for (const WorkloadLayer& layer : layers)
    if (layer.head) total += layer.parameters();
  return total;
}

std::int64_t Workload::feature_elements() const {
  const std::vector<const WorkloadLayer*> head = head_layers();
  return head.empty() ? 0 : head.front()->in_channels;
}

double Workload::forward_macs_per_sample() const {
  double total = 0;
  for (const WorkloadLayer& layer : layers) total += layer.forward_macs_per_sample;
  return total;
}

std::vector<const WorkloadLayer*> Workload::head_layers() const {
  std::vector<const WorkloadLayer*> head;
  for (const WorkloadLayer& layer : layers)
    if (layer.head) head.push_back(&layer);
  return head;
}

std::vector<std::string> workload_names() {
  return {"vgg16-cifar10", "vgg16-miniimagenet", "vgg16-imagenet", "alexnet", "resnet50"};
}

Workload make_workload(const std::string& name) {
  if (name == "vgg16-cifar10") return make_vgg16(name, 32, 10);
  if (name == "vgg16-miniimagenet") return make_vgg16(name, 84, 100);
  if (name == "vgg16-imagenet") return make_vgg16(name, 224, 1000);
  if (name == "alexnet") return make_alexnet(name, 224, 1000);
  if (name == "resnet50") return make_resnet50(name, 224, 1000);
  throw std::invalid_argument(
      fmt::format("unknown workload '{}'; pick one of {}", name, fmt::join(workload_names(), ", ")));
}

std::string_view name_of(WorkloadLayerKind kind) {
  switch (kind) {
    case WorkloadLayerKind::conv: return "conv";
    case WorkloadLayerKind::pool: return "pool";
    case WorkloadLayerKind::fc: return "fc";
  }
  return "?";
}

}  // namespace ringlab::training
