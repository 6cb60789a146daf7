// The Bine butterfly (De Sensi et al., "Bine Trees: Enhancing Collective Operations by Optimizing
// Communication Locality", SC 2025, section on Bine butterflies; the authors' code computes it the
// same way). Ranks are read in negabinary (base -2). On p = 2^L ranks, at step s rank r pairs with
//   r + delta(s) (r even) or r - delta(s) (r odd), modulo p,
// where delta(s) is the value of the negabinary number of s+1 ones:
//   delta(s) = sum_{i<=s} (-2)^i = 1, -1, 3, -5, 11, -21, ...
// the distances the Swing all-reduce uses (swing_pairs.hpp); the test checks that both agree.
// bine_block gives the block a rank keeps after the reduce-scatter (the paper's remap nu):
// the L-digit negabinary form of r (r odd) or -r (r even), taken modulo p into the L-digit range,
// turned into its Gray code and read with its digits reversed.
#pragma once

#include <cstdint>
#include <vector>

namespace ringlab {

// The negabinary digits of `value` (bit i has weight (-2)^i); |value| < 2^30.
std::uint32_t to_negabinary(std::int64_t value);
std::int64_t from_negabinary(std::uint32_t digits);

// delta(s): the value of the negabinary number with s+1 ones.
std::int64_t bine_distance(int step);
// The partner of rank r (0 <= r < p) at step s, p a power of two.
int bine_peer(int rank, int step, int power);
// nu(r, p): the block rank r keeps, 0 <= nu < p; a permutation of 0 .. p-1.
int bine_block(int rank, int power);
// bine_block of every rank 0 .. p-1.
std::vector<int> bine_blocks(int power);

}  // namespace ringlab
