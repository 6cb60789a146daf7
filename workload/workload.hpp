// The real layer lists of the networks `ringlab replay` and `ringlab simulate --workload` price
// (docs/training.md, "Replaying a real network"): VGG-16 at 32x32 (CIFAR-10) and 84x84
// (mini-ImageNet), AlexNet (torchvision's one-tower form) and ResNet-50 (torchvision v1.5), all
// at their input resolution and class count. Every shape is computed from the layer definitions
// by a builder that tracks the activation shape (out = (in + 2 pad - kernel) / stride + 1); nothing
// is pasted from a table. Pure data: no OpenBLAS, so the simulator can use it too (library
// ringlab_workload).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab::training {

enum class WorkloadLayerKind { conv, pool, fc };

// One layer as the communication and the compute profile see it. A conv layer includes its bias
// or batch normalisation and its ReLU; an fc layer its bias and ReLU; ResNet's residual adds and
// the final average pool are folded into the conv before them (no parameters, few operations).
struct WorkloadLayer {
  std::string name;
  WorkloadLayerKind kind = WorkloadLayerKind::conv;
  int in_channels = 0, in_height = 1, in_width = 1;
  int out_channels = 0, out_height = 1, out_width = 1;
  int kernel = 1, stride = 1, padding = 0;
  bool head = false;  // part of the fully connected head (model-parallel in hybrid)
  // Parameter tensors in the order the layer holds them (weight, then bias or BN scale and shift).
  std::vector<std::int64_t> parameter_tensors;
  double forward_macs_per_sample = 0;  // multiply-adds of the forward pass for one sample

  std::int64_t parameters() const;
  std::int64_t output_elements_per_sample() const {
    return static_cast<std::int64_t>(out_channels) * out_height * out_width;
  }
};

struct Workload {
  std::string name;
  int image_size = 0;  // square input, 3 channels
  int classes = 0;
  std::vector<WorkloadLayer> layers;  // backbone first, then the head

  std::int64_t backbone_parameters() const;
  std::int64_t head_parameters() const;
  // Elements per sample entering the head (the flattened features), 0 without a head.
  std::int64_t feature_elements() const;
  double forward_macs_per_sample() const;
  std::vector<const WorkloadLayer*> head_layers() const;
};

// vgg16-cifar10, vgg16-miniimagenet, vgg16-imagenet (224x224, for checking totals), alexnet,
// resnet50.
std::vector<std::string> workload_names();
// Throws std::invalid_argument naming the valid workloads.
Workload make_workload(const std::string& name);

std::string_view name_of(WorkloadLayerKind kind);

}  // namespace ringlab::training
