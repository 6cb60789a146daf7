// The peers of the Swing all-reduce (De Sensi et al., "Swing: Short-cutting Rings for Higher
// Bandwidth Allreduce", NSDI 2024), shared by its bandwidth-optimal (swing.cpp) and
// latency-optimal (swing_latency.cpp) schedules. On p = 2^L ranks, at step s rank r pairs with
//   r + rho(s) (r even) or r - rho(s) (r odd), modulo p,  rho(s) = (1 - (-2)^(s+1)) / 3,
// so rho = 1, -1, 3, -5, 11, -21, ...: the distance grows like 2^s but a rank's partners stay
// closer on a ring or torus dimension than the XOR partners of recursive doubling (distance 2^s).
#pragma once

#include <cstdint>
#include <vector>

namespace ringlab {

// rho(s) = (1 - (-2)^(s+1)) / 3.
std::int64_t swing_distance(int step);
// The partner of rank r (0 <= r < p) at step s, p a power of two.
int swing_peer(int rank, int step, int power);

// The groups a bandwidth-optimal Swing works in: group(r, s) is the set of ranks r reaches through
// steps s .. L-1 (group(r, L) = {r}, group(r, s) = group(r, s+1) + group(peer(r, s), s+1)). The
// constructor checks that each group(r, s) is exactly two disjoint groups of step s+1 (throws
// std::logic_error otherwise) and numbers the ranks so that every group is an aligned range of
// positions, the group holding the smaller rank first: at step s rank r then reduce-scatters over
// one range per group (halving_butterfly).
class SwingGroups {
 public:
  explicit SwingGroups(int power);
  int levels() const { return levels_; }
  // The block (position) that rank r ends up owning.
  int position(int rank) const { return position_[static_cast<std::size_t>(rank)]; }

 private:
  int levels_;
  std::vector<int> position_;
};

// SwingGroups(p).position of every rank 0 .. p-1.
std::vector<int> swing_blocks(int power);

}  // namespace ringlab
