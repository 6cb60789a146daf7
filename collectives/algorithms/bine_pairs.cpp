#include "collectives/algorithms/bine_pairs.hpp"

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {
// Bits 1, 3, 5, ...: the digits of negative weight.
constexpr std::uint32_t negative_digits = 0xAAAAAAAAu;

// The largest value L negabinary digits hold: the digits of positive weight all set.
std::int64_t largest_negabinary(int digits) {
  std::int64_t largest = 0;
  for (int digit = 0; digit < digits; digit += 2) largest += std::int64_t{1} << digit;
  return largest;
}

std::uint32_t reverse_digits(std::uint32_t value, int digits) {
  std::uint32_t reversed = 0;
  for (int digit = 0; digit < digits; ++digit) reversed |= ((value >> digit) & 1u) << (digits - 1 - digit);
  return reversed;
}
}  // namespace

std::uint32_t to_negabinary(std::int64_t value) {
  return (negative_digits + static_cast<std::uint32_t>(value)) ^ negative_digits;
}

std::int64_t from_negabinary(std::uint32_t digits) {
  return static_cast<std::int64_t>(static_cast<std::int32_t>((digits ^ negative_digits) - negative_digits));
}

std::int64_t bine_distance(int step) { return from_negabinary((std::uint32_t{2} << step) - 1); }

int bine_peer(int rank, int step, int power) {
  const std::int64_t distance = bine_distance(step);
  const std::int64_t peer = (rank % 2 == 0 ? rank + distance : rank - distance) % power;
  return static_cast<int>(peer < 0 ? peer + power : peer);
}

int bine_block(int rank, int power) {
  const int digits = floor_log2(power);
  // L digits hold the p consecutive values [largest - p + 1, largest]: one per residue modulo p.
  const std::int64_t largest = largest_negabinary(digits);
  std::int64_t value = rank % 2 == 1 ? rank : -rank;
  while (value > largest) value -= power;
  while (value < largest - power + 1) value += power;
  const std::uint32_t negabinary = to_negabinary(value);
  return static_cast<int>(reverse_digits(negabinary ^ (negabinary >> 1), digits));
}

std::vector<int> bine_blocks(int power) {
  std::vector<int> blocks(static_cast<std::size_t>(power));
  for (int rank = 0; rank < power; ++rank) blocks[static_cast<std::size_t>(rank)] = bine_block(rank, power);
  return blocks;
}

}  // namespace ringlab
