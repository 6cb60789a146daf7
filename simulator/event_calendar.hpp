// The pending events of a discrete-event simulation in (time, order added) order, as one heap of
// events keyed by (time, sequence number), with a heap entry per bucket instead of per event: an
// event joins the newest bucket of its time while that bucket is remembered (a small table by
// time) and not yet being handled, else it opens a new bucket. Buckets of one time are handled in
// the order they were opened, each front to back, so the order is exactly that of the single heap.
// Ranks that run in step (a ring on a symmetric network) add thousands of events at one time, and
// the pops of a heap of millions of events are most of such a simulation's work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <array>
#include <bit>
#include <queue>
#include <vector>

namespace ringlab::simulator {

template <typename Event>
class EventCalendar {
 public:
  void add(double time, const Event& event) {
    Remembered& slot = remembered_[slot_of(time)];
    if (!slot.open || slot.time != time) {
      slot = {time, take_bucket(), true};
      heap_.push({time, next_sequence_++, slot.bucket});
    }
    buckets_[slot.bucket].push_back(event);
  }

  bool empty() const { return heap_.empty(); }
  double earliest() const { return heap_.top().time; }

  // Calls handle(event, time) for each event of the earliest bucket in the order added; returns
  // how many. Events that handle adds go to later buckets.
  template <typename Handle>
  std::int64_t handle_earliest(Handle&& handle) {
    const Entry entry = heap_.top();
    heap_.pop();
    Remembered& slot = remembered_[slot_of(entry.time)];
    if (slot.open && slot.bucket == entry.bucket) slot.open = false;
    // By index: handle may open buckets, which moves this one (its events stay where they are).
    const std::size_t count = buckets_[entry.bucket].size();
    for (std::size_t i = 0; i < count; ++i) handle(buckets_[entry.bucket][i], entry.time);
    buckets_[entry.bucket].clear();
    free_.push_back(entry.bucket);
    return static_cast<std::int64_t>(count);
  }

 private:
  struct Entry {
    double time = 0;
    std::uint64_t sequence = 0;
    std::uint32_t bucket = 0;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };
  struct Remembered {
    double time = 0;
    std::uint32_t bucket = 0;
    bool open = false;  // its bucket still takes events
  };
  static constexpr std::size_t remembered_slots = 64;

  static std::size_t slot_of(double time) {
    return static_cast<std::size_t>((std::bit_cast<std::uint64_t>(time) * 0x9E3779B97F4A7C15ULL) >> 58);
  }

  std::uint32_t take_bucket() {
    if (free_.empty()) {
      buckets_.emplace_back();
      return static_cast<std::uint32_t>(buckets_.size() - 1);
    }
    const std::uint32_t bucket = free_.back();
    free_.pop_back();
    return bucket;
  }

  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  std::uint64_t next_sequence_ = 0;
  std::array<Remembered, remembered_slots> remembered_{};
  std::vector<std::vector<Event>> buckets_;  // emptied buckets keep their memory for reuse
  std::vector<std::uint32_t> free_;
};

}  // namespace ringlab::simulator
