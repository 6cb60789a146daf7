#include "collectives/algorithms/swing_pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

std::int64_t swing_distance(int step) {
  std::int64_t power = 1;  // (-2)^(step + 1)
  for (int i = 0; i <= step; ++i) power *= -2;
  return (1 - power) / 3;
}

int swing_peer(int rank, int step, int power) {
  const std::int64_t distance = swing_distance(step);
  const std::int64_t peer = (rank % 2 == 0 ? rank + distance : rank - distance) % power;
  return static_cast<int>(peer < 0 ? peer + power : peer);
}

namespace {
// The label of a group is its smallest rank.
std::vector<std::vector<int>> group_labels(int power, int levels) {
  std::vector<std::vector<int>> label(static_cast<std::size_t>(levels) + 1, std::vector<int>(static_cast<std::size_t>(power)));
  for (int rank = 0; rank < power; ++rank) label.back()[static_cast<std::size_t>(rank)] = rank;
  for (int step = levels - 1; step >= 0; --step) {
    const auto& below = label[static_cast<std::size_t>(step) + 1];
    auto& here = label[static_cast<std::size_t>(step)];
    std::vector<int> paired_with(static_cast<std::size_t>(power), -1);  // by the label of step s+1
    for (int rank = 0; rank < power; ++rank) {
      const int own = below[static_cast<std::size_t>(rank)];
      const int other = below[static_cast<std::size_t>(swing_peer(rank, step, power))];
      int& pair = paired_with[static_cast<std::size_t>(own)];
      if (own == other || (pair >= 0 && pair != other))
        throw std::logic_error(fmt::format("swing: at step {} of {} ranks the groups do not pair up (rank {})", step,
                                           power, rank));
      pair = other;
      here[static_cast<std::size_t>(rank)] = std::min(own, other);
    }
  }
  return label;
}
}  // namespace

SwingGroups::SwingGroups(int power) : levels_(floor_log2(power)) {
  const std::vector<std::vector<int>> label = group_labels(power, levels_);
  // The first position of a group by level and label, top-down: the child holding the parent's label first.
  std::vector<std::vector<std::int64_t>> first(static_cast<std::size_t>(levels_) + 1,
                                               std::vector<std::int64_t>(static_cast<std::size_t>(power), -1));
  first[0][0] = 0;
  for (int step = 0; step < levels_; ++step) {
    const std::int64_t half = std::int64_t{1} << (levels_ - step - 1);
    for (int rank = 0; rank < power; ++rank) {
      const int parent = label[static_cast<std::size_t>(step)][static_cast<std::size_t>(rank)];
      const int child = label[static_cast<std::size_t>(step) + 1][static_cast<std::size_t>(rank)];
      first[static_cast<std::size_t>(step) + 1][static_cast<std::size_t>(child)] =
          first[static_cast<std::size_t>(step)][static_cast<std::size_t>(parent)] + (child == parent ? 0 : half);
    }
  }
  position_.resize(static_cast<std::size_t>(power));
  for (int rank = 0; rank < power; ++rank)
    position_[static_cast<std::size_t>(rank)] = static_cast<int>(first.back()[static_cast<std::size_t>(rank)]);
}

std::vector<int> swing_blocks(int power) {
  const SwingGroups groups(power);
  std::vector<int> blocks(static_cast<std::size_t>(power));
  for (int rank = 0; rank < power; ++rank) blocks[static_cast<std::size_t>(rank)] = groups.position(rank);
  return blocks;
}

}  // namespace ringlab
