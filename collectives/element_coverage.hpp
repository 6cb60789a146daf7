// ElementCoverage: which elements of a buffer have been written, as disjoint half-open ranges.
// The executor uses it for out-of-place calls: an element's current value lives in the input
// until a step writes it into the output, so no input-to-output copy is needed up front.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace ringlab {

class ElementCoverage {
 public:
  struct Range {
    std::int64_t first = 0;
    std::int64_t last = 0;  // exclusive
  };

  // True when every element of [first, last) is covered (an empty range always is).
  bool covers(std::int64_t first, std::int64_t last) const;
  // True when at least one element of [first, last) is covered.
  bool touches(std::int64_t first, std::int64_t last) const;
  // The uncovered parts of [first, last), in order.
  std::vector<Range> gaps(std::int64_t first, std::int64_t last) const;
  void add(std::int64_t first, std::int64_t last);

 private:
  std::map<std::int64_t, std::int64_t> ranges_;  // first -> last; disjoint and never adjacent
};

}  // namespace ringlab
