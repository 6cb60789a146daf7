#include "collectives/backends/shm_channel.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace ringlab {

namespace {
constexpr std::size_t counters_bytes = 2 * ShmChannel::alignment;
constexpr std::size_t fragment_header_bytes = sizeof(ShmFragment);
static_assert(sizeof(ShmFragment) == ShmChannel::alignment);
static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free,
              "shared-memory channels need lock-free 64-bit atomics, which work across processes");
}  // namespace

std::size_t ShmChannel::footprint(std::size_t slots, std::size_t slot_bytes) {
  return counters_bytes + slots * (fragment_header_bytes + slot_bytes);
}

ShmChannel::ShmChannel(void* memory, std::size_t slots, std::size_t slot_bytes)
    : memory_(static_cast<std::byte*>(memory)), slots_(slots), slot_bytes_(slot_bytes) {
  if (memory == nullptr || reinterpret_cast<std::uintptr_t>(memory) % alignment != 0 || slots == 0 ||
      slot_bytes == 0 || slot_bytes % alignment != 0)
    throw std::invalid_argument(fmt::format("shared-memory channel: needs 64-byte aligned memory, at least one slot "
                                            "and a slot size that is a positive multiple of 64 (got {} slots of {} "
                                            "bytes)",
                                            slots, slot_bytes));
  written_ = published().load(std::memory_order_relaxed);
  read_ = consumed().load(std::memory_order_relaxed);
}

std::atomic_ref<std::uint64_t> ShmChannel::published() const {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(memory_));
}

std::atomic_ref<std::uint64_t> ShmChannel::consumed() const {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(memory_ + alignment));
}

std::byte* ShmChannel::slot(std::uint64_t index) const {
  return memory_ + counters_bytes + (index % slots_) * (fragment_header_bytes + slot_bytes_);
}

bool ShmChannel::can_write() const { return written_ - consumed().load(std::memory_order_acquire) < slots_; }

ShmFragment& ShmChannel::next_fragment() { return *reinterpret_cast<ShmFragment*>(slot(written_)); }

std::byte* ShmChannel::next_payload() { return slot(written_) + fragment_header_bytes; }

std::uint64_t ShmChannel::publish() {
  published().store(++written_, std::memory_order_release);
  return written_;
}

bool ShmChannel::released(std::uint64_t published_count) const {
  return consumed().load(std::memory_order_acquire) >= published_count;
}

const ShmFragment* ShmChannel::peek() const {
  if (published().load(std::memory_order_acquire) == read_) return nullptr;
  return reinterpret_cast<const ShmFragment*>(slot(read_));
}

const std::byte* ShmChannel::payload() const { return slot(read_) + fragment_header_bytes; }

void ShmChannel::release() { consumed().store(++read_, std::memory_order_release); }

}  // namespace ringlab
