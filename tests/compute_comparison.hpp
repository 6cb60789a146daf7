// Shared by the compute tests (test_training_compute.cpp: the CPU against direct loops;
// cuda/test_training_gpu.cpp: the GPU against the CPU): random operands and the float32
// summation bound both compare with. Two float32 sums of the same K products in any order (and
// with or without FMA) each stay within K * u * S of the exact sum, u = 2^-24 and S the sum of
// the products' magnitudes, so they differ by at most 2 * K * u * S; `S` comes from the same
// operation on |operands|.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace ringlab::training::testing {

inline std::vector<float> random_floats(std::size_t count, std::uint32_t seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values) value = distribution(generator);
  return values;
}

inline std::vector<float> magnitudes(const std::vector<float>& values) {
  std::vector<float> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = std::abs(values[i]);
  return result;
}

// Every |actual[i] - expected[i]| <= 2 * terms * 2^-24 * scale[i] (plus the float32 rounding of
// scale itself, one more u); reports the first few offenders.
inline void expect_within_summation_bound(const std::vector<float>& actual, const std::vector<float>& expected,
                                          const std::vector<float>& scale, std::size_t terms,
                                          const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  ASSERT_EQ(scale.size(), expected.size()) << what;
  const double u = std::ldexp(1.0, -24);
  int reported = 0;
  for (std::size_t i = 0; i < actual.size() && reported < 5; ++i) {
    const double bound = (2.0 * static_cast<double>(terms) + 1.0) * u * static_cast<double>(scale[i]) * (1.0 + u);
    const double difference = std::abs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
    if (difference <= bound) continue;
    ADD_FAILURE() << what << "[" << i << "]: " << actual[i] << " vs " << expected[i] << ", difference "
                  << difference << " > bound " << bound << " (" << terms << " terms)";
    ++reported;
  }
}

}  // namespace ringlab::training::testing
