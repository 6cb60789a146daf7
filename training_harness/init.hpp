// Deterministic weight initialisation as a pure function of (seed, layer, element index), so a
// rank that owns only a slice of a layer (the model-parallel head) gets exactly the values the
// whole layer has on one rank.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ringlab::training {

struct InitKey {
  std::uint64_t seed = 1;
  std::uint64_t layer = 0;  // position of the layer in the model
};

// Uniform in [-bound, bound): splitmix64 of (seed, layer, index), top 24 bits as the fraction.
float uniform_init(const InitKey& key, std::uint64_t index, float bound);

// He-uniform bound for a ReLU network: sqrt(6 / fan_in).
float he_bound(std::size_t fan_in);

// A splitmix64 step: the hash behind uniform_init, the synthetic data and the batch order.
std::uint64_t mix64(std::uint64_t value);

}  // namespace ringlab::training
