// `ringlab replay --profile measure`: each layer of a workload timed forward + backward on this
// machine with the training harness's CPU layers (docs/training.md) at the layer's real shape.
// Steps per layer: build the layer (conv + bias + ReLU, 2x2 max-pool, or fc + bias + ReLU) at the
// workload's channels and image size; run forward and backward once on `batch` samples to
// allocate; then time `repetitions` forward and backward passes and keep the fastest of each;
// divide by `batch` (the times are taken as linear in the batch).
#pragma once

#include "training_harness/compute.hpp"
#include "workload/workload_profile.hpp"

namespace ringlab::training {

// Throws std::invalid_argument naming the first layer the CPU layers cannot run (strided convs,
// 3x3 pools, batch normalisation: AlexNet and ResNet-50), with the alternatives.
void check_measurable(const Workload& workload);

ComputeProfile measure_profile(const Workload& workload, const Compute& compute, int batch, int repetitions);

}  // namespace ringlab::training
