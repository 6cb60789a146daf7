// The flows on one resource (link direction or limited switch) of the flow-level model, with
// which crossing of each flow's route an entry is, and the resource's busy time and bytes, in
// one cache line: the first three entries in place, more on the heap. A ring's flow on a torus
// crosses links that carry it alone, and per-resource vectors cost a cache miss each per flow
// start and end (31 % of ring on torus2d:64x64). Entries leave in O(1): the last entry takes the
// leaving one's place, and remove says which entry moved, so its flow's position is updated.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>

namespace ringlab::simulator {

class alignas(64) ResourceFlows {
 public:
  struct Entry {
    int flow = -1;  // -1: none
    std::int32_t crossing = 0;
  };

  std::span<const int> flows() const { return {flows_data(), static_cast<std::size_t>(size_)}; }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return static_cast<std::size_t>(size_); }

  // Adds an entry; returns its position.
  std::int32_t add(int flow, std::int32_t crossing) {
    if (size_ == capacity_) grow();
    flows_data()[size_] = flow;
    crossings_data()[size_] = crossing;
    return size_++;
  }

  // Takes the entry at `position` off; returns the entry that moved into its place (flow -1: none).
  Entry remove(std::int32_t position) {
    --size_;
    if (position == size_) return {};
    int* flows = flows_data();
    std::int32_t* crossings = crossings_data();
    flows[position] = flows[size_];
    crossings[position] = crossings[size_];
    return {flows[position], crossings[position]};
  }

  double busy_since = 0;    // when its first flow of the current busy span started
  double busy_seconds = 0;  // time with at least one flow
  double bytes = 0;         // carried

 private:
  static constexpr std::int32_t in_place = 3;

  int* flows_data() { return heap_ ? heap_.get() : flows_; }
  const int* flows_data() const { return heap_ ? heap_.get() : flows_; }
  std::int32_t* crossings_data() { return heap_ ? heap_.get() + capacity_ : crossings_; }

  void grow() {  // capacity_ flows, then capacity_ crossings
    const std::int32_t capacity = std::max(8, 2 * capacity_);
    auto grown = std::make_unique<std::int32_t[]>(2 * static_cast<std::size_t>(capacity));
    std::copy_n(flows_data(), size_, grown.get());
    std::copy_n(crossings_data(), size_, grown.get() + capacity);
    heap_ = std::move(grown);
    capacity_ = capacity;
  }

  std::int32_t size_ = 0;
  std::int32_t capacity_ = in_place;
  int flows_[in_place] = {};
  std::int32_t crossings_[in_place] = {};
  std::unique_ptr<std::int32_t[]> heap_;  // null while the entries fit in place
};

}  // namespace ringlab::simulator
