#include "collectives/backends/shm_transport.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "collectives/reduce.hpp"

namespace ringlab {

struct ShmTransport::SendState {
  int peer = 0;
  int tag = 0;
  std::uint64_t bytes = 0;
  const std::byte* next = nullptr;  // the next byte to copy into a slot
  std::uint64_t offset = 0;         // bytes already copied
  bool started = false;             // a first fragment was published
  bool complete = false;
  std::int64_t region = -1;          // direct send: the registered region holding the bytes
  std::uint64_t region_offset = 0;
  std::uint64_t release_count = 0;   // direct send: complete once the channel released this many
  std::vector<std::byte> owned;  // the unsent rest, once the request was destroyed mid-message

  bool all_written() const { return started && offset == bytes; }
};

struct ShmTransport::RecvState {
  int peer = 0;
  int tag = 0;
  std::uint64_t bytes = 0;
  std::byte* target = nullptr;
  const std::byte* base = nullptr;  // reduce: target = base (op) incoming
  bool reduce = false;
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  bool complete = false;
  bool abandoned = false;  // its request was destroyed while a message streamed into it
  std::string error;

  void deliver(std::uint64_t at, const std::byte* data, std::uint64_t length) const {
    if (abandoned || !error.empty() || length == 0) return;
    if (!reduce) {
      std::memcpy(target + at, data, length);
      return;
    }
    const std::size_t elements = length / element_size(type);
    if (base == target) reduce_into(target + at, data, elements, type, op);
    else reduce_to(target + at, base + at, data, elements, type, op);
  }
};

struct ShmTransport::BufferedMessage {
  int tag = 0;
  std::vector<std::byte> data;
  bool complete = false;
  std::shared_ptr<RecvState> claimant;  // a receive posted while the message was still arriving
};

namespace {

template <typename State>
class ShmRequest final : public Request {
 public:
  ShmRequest(ShmTransport& transport, std::shared_ptr<State> state, int rank, const std::string& label)
      : transport_(transport), state_(std::move(state)), rank_(rank), label_(label) {}
  ShmRequest(const ShmRequest&) = delete;
  ShmRequest& operator=(const ShmRequest&) = delete;
  ~ShmRequest() override {
    if (!state_->complete) transport_.abandon(state_);
  }

  void wait(Clock::time_point deadline, std::string_view what) override {
    while (!poll()) {
      if (Clock::now() >= deadline)
        throw TimeoutError(fmt::format("{}: rank {}: {} timed out: {}", label_, rank_, what, describe()));
      sched_yield();  // oversubscribed runs: let the peer process run
    }
  }

  bool test() override { return poll(); }

 private:
  bool poll() {
    if (finished()) return true;
    transport_.progress();
    return finished();
  }

  bool finished() const {
    if constexpr (requires { state_->error; })
      if (!state_->error.empty()) throw CommunicationError(state_->error);
    return state_->complete;
  }

  std::string describe() const {
    if constexpr (requires { state_->target; })
      return fmt::format("receive of {} bytes from rank {} (tag {}) over shared memory", state_->bytes, state_->peer,
                         state_->tag);
    else
      return fmt::format("send of {} bytes to rank {} (tag {}) over shared memory", state_->bytes, state_->peer,
                         state_->tag);
  }

  ShmTransport& transport_;
  std::shared_ptr<State> state_;
  int rank_;
  std::string label_;
};

}  // namespace

ShmTransport::ShmTransport(int rank, std::vector<ShmChannel*> inbound, std::vector<ShmChannel*> outbound,
                           std::string label)
    : rank_(rank), label_(std::move(label)), peers_(inbound.size()) {
  if (inbound.size() != outbound.size())
    throw std::invalid_argument("shared-memory transport: inbound and outbound channel lists differ in length");
  for (std::size_t peer = 0; peer < peers_.size(); ++peer) {
    if ((inbound[peer] == nullptr) != (outbound[peer] == nullptr))
      throw std::invalid_argument(fmt::format("shared-memory transport: rank {} has a channel to rank {} in one "
                                              "direction only",
                                              rank, peer));
    peers_[peer].inbound = inbound[peer];
    peers_[peer].outbound = outbound[peer];
  }
}

ShmTransport::~ShmTransport() = default;

bool ShmTransport::reaches(int peer) const {
  return peer >= 0 && static_cast<std::size_t>(peer) < peers_.size() && peer != rank_ &&
         peers_[static_cast<std::size_t>(peer)].outbound != nullptr;
}

ShmTransport::Peer& ShmTransport::reachable(int peer) {
  if (!reaches(peer))
    throw std::invalid_argument(fmt::format("{}: rank {} has no shared memory with rank {}", label_, rank_, peer));
  return peers_[static_cast<std::size_t>(peer)];
}

RequestPtr ShmTransport::post_send(std::span<const std::byte> data, int peer, int tag) {
  Peer& target = reachable(peer);
  auto send = std::make_shared<SendState>();
  send->peer = peer;
  send->tag = tag;
  send->bytes = data.size();
  send->next = data.data();
  if (data.size() >= direct_min_bytes_)
    if (const auto* region = region_holding(data); region && !region->second.mapped_peers[peer].empty()) {
      send->region = region->first;
      send->region_offset = static_cast<std::uint64_t>(data.data() - region->second.own.data());
    }
  target.sends.push_back(send);
  progress_sends(target);
  return std::make_unique<ShmRequest<SendState>>(*this, send, rank_, label_);
}

RequestPtr ShmTransport::post_recv(std::span<std::byte> data, int peer, int tag) {
  auto recv = std::make_shared<RecvState>();
  recv->peer = peer;
  recv->tag = tag;
  recv->bytes = data.size();
  recv->target = data.data();
  return post(recv);
}

RequestPtr ShmTransport::post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag,
                                          DataType type, ReduceOp op) {
  if (target.size() % element_size(type) != 0)
    throw std::invalid_argument(fmt::format("{}: rank {}: a reducing receive of {} bytes is not a whole number of {} "
                                            "elements",
                                            label_, rank_, target.size(), name_of(type)));
  auto recv = std::make_shared<RecvState>();
  recv->peer = peer;
  recv->tag = tag;
  recv->bytes = target.size();
  recv->target = target.data();
  recv->base = base;
  recv->reduce = true;
  recv->type = type;
  recv->op = op;
  return post(recv);
}

RequestPtr ShmTransport::post(const std::shared_ptr<RecvState>& recv) {
  Peer& peer = reachable(recv->peer);
  // A message that arrived before any receive for it is older than anything still in the channel.
  const auto buffered = std::find_if(peer.buffered.begin(), peer.buffered.end(), [&](const auto& message) {
    return message->tag == recv->tag && !message->claimant;
  });
  if (buffered != peer.buffered.end()) {
    const std::shared_ptr<BufferedMessage> message = *buffered;
    bind(recv->peer, recv, message->data.size());
    if (message->complete) {
      recv->deliver(0, message->data.data(), message->data.size());
      recv->complete = recv->error.empty();
      peer.buffered.erase(buffered);
    } else {
      message->claimant = recv;
    }
  } else {
    peer.posted.push_back(recv);
  }
  progress_receives(recv->peer, peer);
  return std::make_unique<ShmRequest<RecvState>>(*this, recv, rank_, label_);
}

void ShmTransport::bind(int from, const std::shared_ptr<RecvState>& recv, std::uint64_t message_bytes) {
  if (message_bytes == recv->bytes) return;
  recv->error = fmt::format("{}: rank {} posted a receive of {} bytes (tag {}) from rank {}, but rank {} sent {} bytes",
                            label_, rank_, recv->bytes, recv->tag, from, from, message_bytes);
}

void ShmTransport::progress() {
  for (std::size_t peer = 0; peer < peers_.size(); ++peer) {
    if (peers_[peer].outbound == nullptr) continue;
    progress_sends(peers_[peer]);
    progress_receives(static_cast<int>(peer), peers_[peer]);
  }
}

void ShmTransport::progress_sends(Peer& peer) {
  ShmChannel& channel = *peer.outbound;
  while (!peer.unreleased.empty() && channel.released(peer.unreleased.front()->release_count)) {
    peer.unreleased.front()->complete = true;
    peer.unreleased.pop_front();
  }
  while (!peer.sends.empty()) {
    SendState& send = *peer.sends.front();
    if (send.region >= 0) {  // one fragment naming where the bytes are; complete once it is released
      if (!channel.can_write()) return;
      ShmFragment& fragment = channel.next_fragment();
      fragment = ShmFragment{send.tag, send.bytes, 0, send.bytes, send.region, send.region_offset};
      send.release_count = channel.publish();
      send.started = true;
      send.offset = send.bytes;
      peer.unreleased.push_back(peer.sends.front());
      peer.sends.pop_front();
      continue;
    }
    while (!send.all_written()) {
      if (!channel.can_write()) return;
      const std::uint64_t length = std::min<std::uint64_t>(channel.slot_bytes(), send.bytes - send.offset);
      ShmFragment& fragment = channel.next_fragment();
      fragment.tag = send.tag;
      fragment.message_bytes = send.bytes;
      fragment.offset = send.offset;
      fragment.bytes = length;
      fragment.region = -1;
      if (length > 0) std::memcpy(channel.next_payload(), send.next, length);
      channel.publish();
      send.next += length;
      send.offset += length;
      send.started = true;
    }
    send.complete = true;
    peer.sends.pop_front();
  }
}

bool ShmTransport::match(int from, Peer& peer, const ShmFragment& first) {
  const auto posted = std::find_if(peer.posted.begin(), peer.posted.end(),
                                   [&](const auto& recv) { return recv->tag == first.tag; });
  if (posted != peer.posted.end()) {
    peer.current = Sink{*posted, nullptr, false};
    peer.posted.erase(posted);
    bind(from, peer.current.recv, first.message_bytes);
    return true;
  }
  // Nothing waits for it: leave it in the channel unless it blocks a receive with another tag.
  if (peer.posted.empty()) return false;
  auto message = std::make_shared<BufferedMessage>();
  message->tag = static_cast<int>(first.tag);
  message->data.resize(first.message_bytes);
  peer.buffered.push_back(message);
  peer.current = Sink{nullptr, message, false};
  return true;
}

void ShmTransport::progress_receives(int from, Peer& peer) {
  ShmChannel& channel = *peer.inbound;
  while (const ShmFragment* published = channel.peek()) {
    const ShmFragment fragment = *published;
    const bool direct = fragment.region >= 0;
    if (fragment.offset + fragment.bytes > fragment.message_bytes || (!direct && fragment.bytes > channel.slot_bytes()) ||
        (direct && fragment.bytes != fragment.message_bytes) || (!peer.receiving && fragment.offset != 0))
      throw CommunicationError(fmt::format("{}: rank {}: corrupt shared-memory fragment from rank {} (offset {}, {} "
                                           "bytes of a {}-byte message)",
                                           label_, rank_, from, fragment.offset, fragment.bytes,
                                           fragment.message_bytes));
    if (!peer.receiving) {
      if (!match(from, peer, fragment)) return;
      peer.receiving = true;
    }
    const Sink& sink = peer.current;
    const std::byte* data = fragment_data(from, channel, fragment);
    if (sink.recv) sink.recv->deliver(fragment.offset, data, fragment.bytes);
    else if (sink.buffered && fragment.bytes > 0)
      std::memcpy(sink.buffered->data.data() + fragment.offset, data, fragment.bytes);
    channel.release();
    if (fragment.offset + fragment.bytes < fragment.message_bytes) continue;
    // The message is complete.
    if (sink.recv) {
      sink.recv->complete = sink.recv->error.empty() && !sink.recv->abandoned;
    } else if (sink.buffered) {
      BufferedMessage& message = *sink.buffered;
      message.complete = true;
      if (message.claimant) {
        message.claimant->deliver(0, message.data.data(), message.data.size());
        message.claimant->complete = message.claimant->error.empty();
        std::erase(peer.buffered, sink.buffered);
      }
    }
    peer.current = {};
    peer.receiving = false;
  }
}

const std::byte* ShmTransport::fragment_data(int from, const ShmChannel& channel, const ShmFragment& fragment) const {
  if (fragment.region < 0) return channel.payload();
  const auto region = regions_.find(fragment.region);
  const std::span<const std::byte> mapped =
      region == regions_.end() ? std::span<const std::byte>{} : region->second.mapped_peers[static_cast<std::size_t>(from)];
  if (mapped.empty() || fragment.region_offset > mapped.size() || fragment.bytes > mapped.size() - fragment.region_offset)
    throw CommunicationError(fmt::format("{}: rank {}: rank {} sent {} bytes at offset {} of its registered buffer {}, "
                                         "which this rank has {}",
                                         label_, rank_, from, fragment.bytes, fragment.region_offset, fragment.region,
                                         mapped.empty() ? std::string("not mapped (ranks allocated or freed buffers "
                                                                      "in a different order)")
                                                        : fmt::format("mapped with only {} bytes", mapped.size())));
  return mapped.data() + fragment.region_offset;
}

const std::pair<const std::int64_t, ShmTransport::Region>* ShmTransport::region_holding(
    std::span<const std::byte> data) const {
  const std::less<const std::byte*> before;
  for (const auto& entry : regions_) {
    const std::span<const std::byte> own = entry.second.own;
    if (!before(data.data(), own.data()) && !before(own.data() + own.size(), data.data() + data.size())) return &entry;
  }
  return nullptr;
}

void ShmTransport::add_region(std::int64_t id, std::span<const std::byte> own,
                              std::vector<std::span<const std::byte>> mapped_peers) {
  if (mapped_peers.size() != peers_.size())
    throw std::invalid_argument(fmt::format("{}: registered buffer {} lists {} peer mappings for {} ranks", label_, id,
                                            mapped_peers.size(), peers_.size()));
  if (!regions_.emplace(id, Region{own, std::move(mapped_peers)}).second)
    throw std::invalid_argument(fmt::format("{}: registered buffer {} exists already", label_, id));
}

void ShmTransport::remove_region(std::int64_t id) { regions_.erase(id); }

void ShmTransport::abandon(const std::shared_ptr<SendState>& send) {
  Peer& peer = peers_[static_cast<std::size_t>(send->peer)];
  if (!send->started) {
    std::erase(peer.sends, send);
    return;
  }
  if (send->region >= 0) return;  // the receiver reads the sender's memory; nothing is left to copy
  // Half the message is in the channel already: keep the rest so the receiver gets all of it.
  send->owned.assign(send->next, send->next + (send->bytes - send->offset));
  send->next = send->owned.data();
}

void ShmTransport::abandon(const std::shared_ptr<RecvState>& recv) {
  Peer& peer = peers_[static_cast<std::size_t>(recv->peer)];
  std::erase(peer.posted, recv);
  for (const auto& message : peer.buffered)
    if (message->claimant == recv) message->claimant = nullptr;  // the message waits for another receive
  recv->abandoned = true;  // a message streaming into it is dropped
}

}  // namespace ringlab
