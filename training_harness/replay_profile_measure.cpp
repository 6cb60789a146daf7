#include "training_harness/replay_profile_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <stdexcept>

#include "training_harness/layers.hpp"

namespace ringlab::training {

namespace {

bool measurable(const WorkloadLayer& layer) {
  switch (layer.kind) {
    case WorkloadLayerKind::conv: return layer.stride == 1 && layer.parameter_tensors.size() == 2;  // bias, no BN
    case WorkloadLayerKind::pool: return layer.kernel == 2 && layer.stride == 2 && layer.padding == 0;
    case WorkloadLayerKind::fc: return true;
  }
  return false;
}

std::vector<std::unique_ptr<Layer>> make_layers(const WorkloadLayer& layer, std::uint64_t index) {
  std::vector<std::unique_ptr<Layer>> layers;
  const InitKey key{1, index};
  if (layer.kind == WorkloadLayerKind::conv)
    layers.push_back(std::make_unique<Conv2d>(layer.in_channels, layer.out_channels, layer.kernel, layer.padding, key));
  else if (layer.kind == WorkloadLayerKind::fc)
    layers.push_back(std::make_unique<FullyConnected>(layer.in_channels, layer.out_channels, 0, key));
  if (layer.kind == WorkloadLayerKind::pool) {
    layers.push_back(std::make_unique<MaxPool2x2>());
  } else {
    layers.push_back(std::make_unique<Bias>(layer.out_channels));
    layers.push_back(std::make_unique<Relu>());
  }
  return layers;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Fastest forward and backward of one layer stack over `repetitions` timed runs.
LayerTime time_layer(const WorkloadLayer& layer, std::uint64_t index, const Compute& compute, int batch,
                     int repetitions) {
  std::vector<std::unique_ptr<Layer>> layers = make_layers(layer, index);
  std::vector<Tensor> activations(layers.size() + 1);
  activations[0] = Tensor(Shape{batch, layer.in_channels, layer.in_height, layer.in_width});
  for (std::size_t i = 0; i < activations[0].data.size(); ++i)
    activations[0].data[i] = static_cast<float>(i % 17) * 0.05f - 0.4f;
  std::vector<Tensor> gradients(layers.size() + 1);
  LayerTime time{layer.name, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  for (int r = 0; r <= repetitions; ++r) {  // run 0 allocates and is not counted
    auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < layers.size(); ++i) layers[i]->forward(compute, activations[i], activations[i + 1]);
    const double forward = seconds_since(start);
    gradients.back() = Tensor(activations.back().shape);
    std::fill(gradients.back().data.begin(), gradients.back().data.end(), 0.01f);
    start = std::chrono::steady_clock::now();
    for (std::size_t i = layers.size(); i-- > 0;)
      layers[i]->backward(compute, activations[i], activations[i + 1], gradients[i + 1],
                          (i == 0 && index == 0) ? nullptr : &gradients[i]);
    const double backward = seconds_since(start);
    if (r == 0) continue;
    time.forward_seconds_per_sample = std::min(time.forward_seconds_per_sample, forward / batch);
    time.backward_seconds_per_sample = std::min(time.backward_seconds_per_sample, backward / batch);
  }
  return time;
}

}  // namespace

void check_measurable(const Workload& workload) {
  for (const WorkloadLayer& layer : workload.layers)
    if (!measurable(layer))
      throw std::invalid_argument(fmt::format(
          "--profile measure: layer {} of {} ({} {}x{} stride {}{}) cannot run on the CPU layers (stride-1 convs with "
          "bias, 2x2 max-pools and fc only); give --profile FILE.json or --device-tflops X",
          layer.name, workload.name, name_of(layer.kind), layer.kernel, layer.kernel, layer.stride,
          layer.parameter_tensors.size() == 3 ? ", batch norm" : ""));
}

ComputeProfile measure_profile(const Workload& workload, const Compute& compute, int batch, int repetitions) {
  check_measurable(workload);
  if (batch < 1 || repetitions < 1)
    throw std::invalid_argument("--profile-batch and the repetitions must be at least 1");
  ComputeProfile profile{workload.name,
                         fmt::format("measured: {} CPU layers, batch {} per layer, fastest of {} runs, divided by the "
                                     "batch (taken as linear in the batch)",
                                     compute.name(), batch, repetitions),
                         {}};
  for (std::size_t i = 0; i < workload.layers.size(); ++i)
    profile.layers.push_back(time_layer(workload.layers[i], i, compute, batch, repetitions));
  return profile;
}

}  // namespace ringlab::training
