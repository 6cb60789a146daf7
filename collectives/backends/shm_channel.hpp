// ShmChannel: a single-producer single-consumer ring of fixed-size slots in memory that two
// processes (or threads) share. The sender fills a slot (a header naming the message and the
// fragment, then the payload) and publishes it; the receiver reads published slots in order and
// releases them. Two counters, each on its own cache line, are the only synchronisation:
// `published` is written by the sender only, `consumed` by the receiver only.
//
// Layout at `memory` (64-byte aligned): [published | consumed | slot 0 | slot 1 | ...], each slot
// a 64-byte ShmFragment header followed by slot_bytes of payload.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ringlab {

// One fragment of a message: bytes [offset, offset + bytes) of a message_bytes-long message. Its
// payload follows in the slot, unless `region` names a registered buffer of the sender (then the
// fragment is the whole message and its bytes sit at region_offset in that buffer, which the
// receiver has mapped; see ShmTransport::add_region).
struct alignas(64) ShmFragment {
  std::int64_t tag = 0;
  std::uint64_t message_bytes = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::int64_t region = -1;  // -1: the payload is in the slot
  std::uint64_t region_offset = 0;
};

class ShmChannel {
 public:
  static constexpr std::size_t alignment = 64;

  // Bytes of shared memory one channel occupies.
  static std::size_t footprint(std::size_t slots, std::size_t slot_bytes);

  // A view over `memory` (footprint() bytes, 64-byte aligned, zero-filled before either side
  // uses it). slot_bytes must be a positive multiple of 64 and slots at least 1.
  ShmChannel(void* memory, std::size_t slots, std::size_t slot_bytes);

  std::size_t slot_bytes() const { return slot_bytes_; }

  // Sender side. A free slot exists while fewer than `slots` are published and unreleased.
  bool can_write() const;
  ShmFragment& next_fragment();
  std::byte* next_payload();
  // Makes next_fragment()/next_payload() visible to the receiver; returns the number of fragments
  // published so far, which released() takes.
  std::uint64_t publish();
  // True once the receiver has released the fragment whose publish() returned `published_count`.
  bool released(std::uint64_t published_count) const;

  // Receiver side: the oldest published, unreleased fragment, or nullptr.
  const ShmFragment* peek() const;
  const std::byte* payload() const;
  void release();  // gives the oldest slot back to the sender

 private:
  std::byte* slot(std::uint64_t index) const;
  std::atomic_ref<std::uint64_t> published() const;
  std::atomic_ref<std::uint64_t> consumed() const;

  std::byte* memory_;
  std::size_t slots_;
  std::size_t slot_bytes_;
  // Each side's own counter, cached: only that side writes it.
  std::uint64_t written_ = 0;
  std::uint64_t read_ = 0;
};

}  // namespace ringlab
