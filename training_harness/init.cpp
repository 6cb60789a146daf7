#include "training_harness/init.hpp"

#include <cmath>

namespace ringlab::training {

std::uint64_t mix64(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

float uniform_init(const InitKey& key, std::uint64_t index, float bound) {
  const std::uint64_t bits = mix64(mix64(mix64(key.seed) ^ key.layer) ^ index);
  const float fraction = static_cast<float>(bits >> 40) / static_cast<float>(1u << 24);  // [0, 1)
  return (2.0f * fraction - 1.0f) * bound;
}

float he_bound(std::size_t fan_in) { return std::sqrt(6.0f / static_cast<float>(fan_in)); }

}  // namespace ringlab::training
