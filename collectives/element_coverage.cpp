#include "collectives/element_coverage.hpp"

#include <algorithm>
#include <iterator>

namespace ringlab {

bool ElementCoverage::covers(std::int64_t first, std::int64_t last) const {
  if (first >= last) return true;
  const auto after = ranges_.upper_bound(first);
  if (after == ranges_.begin()) return false;
  return std::prev(after)->second >= last;
}

bool ElementCoverage::touches(std::int64_t first, std::int64_t last) const {
  if (first >= last) return false;
  const auto after = ranges_.lower_bound(last);  // ranges starting at or after `last` cannot overlap
  if (after == ranges_.begin()) return false;
  return std::prev(after)->second > first;
}

std::vector<ElementCoverage::Range> ElementCoverage::gaps(std::int64_t first, std::int64_t last) const {
  std::vector<Range> result;
  std::int64_t cursor = first;
  auto range = ranges_.upper_bound(first);
  if (range != ranges_.begin() && std::prev(range)->second > cursor) cursor = std::prev(range)->second;
  for (; cursor < last; ++range) {
    if (range == ranges_.end() || range->first >= last) {
      result.push_back({cursor, last});
      break;
    }
    if (range->first > cursor) result.push_back({cursor, range->first});
    cursor = std::max(cursor, range->second);
  }
  return result;
}

void ElementCoverage::add(std::int64_t first, std::int64_t last) {
  if (first >= last) return;
  auto range = ranges_.upper_bound(first);
  if (range != ranges_.begin() && std::prev(range)->second >= first) {
    range = std::prev(range);
    first = range->first;
  }
  while (range != ranges_.end() && range->first <= last) {
    last = std::max(last, range->second);
    range = ranges_.erase(range);
  }
  ranges_.emplace(first, last);
}

}  // namespace ringlab
