// ShmTransport: point-to-point messages between ranks that share memory, over one ShmChannel per
// ordered pair of ranks — what NCCL's SHM transport and MPICH's shared-memory module do inside a
// node. The mpi backend uses it for peers on the same host (see MpiCommunicator).
//
// Sends are copied into the channel's slots in posting order, one fragment per slot; receives
// match messages from the same peer by tag in posting order, as in MPI, and a receive can
// combine the incoming fragments straight into its target (post_recv_reduce), so a reduction
// step costs one copy into the slot and one read from it, with no receive buffer in between.
// Progress happens inside wait()/test() of any request; a message whose receive is not yet
// posted waits in the channel (back-pressure), unless a receive with another tag from the same
// peer is waiting behind it, in which case it is buffered on the heap.
//
// Registered buffers (single copy): memory of this rank that its peers have mapped too
// (add_region; the mpi backend's allocate_buffer makes such memory). A send of at least
// direct_min_bytes out of a registered buffer publishes only where its bytes are; the receiver
// copies or reduces straight out of the sender's memory and then releases the slot, which is what
// completes the send. A reduction step then reads each byte once from the sender's memory instead
// of a copy into a slot plus a read out of it — what NCCL does with registered user buffers. The
// sender must leave those bytes alone until the send completed; a direct send whose request is
// destroyed before that leaves the receiver reading whatever the buffer holds then (only error
// paths do so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/datatype.hpp"
#include "collectives/backends/shm_channel.hpp"

namespace ringlab {

class ShmTransport {
 public:
  // inbound[p] carries messages from rank p to `rank`, outbound[p] from `rank` to p; nullptr where
  // p is not reachable through shared memory. `label` starts every error message (e.g. "mpi backend").
  ShmTransport(int rank, std::vector<ShmChannel*> inbound, std::vector<ShmChannel*> outbound, std::string label);
  ~ShmTransport();
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  bool reaches(int peer) const;

  // The caller checks peer and tag. `data` must stay valid until the request completed or is destroyed.
  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag);
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag);
  // target[i] = base[i] (op) incoming[i]; base may be target.data().
  RequestPtr post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag, DataType type,
                              ReduceOp op);

  // Moves every pending send into free slots and every published fragment to its receive.
  void progress();

  // Registers region `id` (the same id on every rank of the host, for the same collective
  // allocation): `own` is this rank's memory, mapped_peers[p] where this rank has mapped rank p's
  // memory of that region (empty where p is not reachable or not mapped). std::invalid_argument
  // for an id in use or a list of the wrong length.
  void add_region(std::int64_t id, std::span<const std::byte> own, std::vector<std::span<const std::byte>> mapped_peers);
  void remove_region(std::int64_t id);
  // Sends shorter than this are copied into slots even from a registered buffer (a copy of a small
  // message costs less than the receiver's acknowledgement).
  void set_direct_min_bytes(std::size_t bytes) { direct_min_bytes_ = bytes; }
  std::size_t direct_min_bytes() const { return direct_min_bytes_; }
  static constexpr std::size_t default_direct_min_bytes = std::size_t{64} << 10;

  struct SendState;
  struct RecvState;
  struct BufferedMessage;
  // Called when a request is destroyed before it completed (defined in the .cpp).
  void abandon(const std::shared_ptr<SendState>& send);
  void abandon(const std::shared_ptr<RecvState>& recv);

 private:
  // A published first fragment's destination: a posted receive, a heap buffer, or nowhere.
  struct Sink {
    std::shared_ptr<RecvState> recv;
    std::shared_ptr<BufferedMessage> buffered;
    bool discard = false;
  };
  struct Peer {
    ShmChannel* inbound = nullptr;
    ShmChannel* outbound = nullptr;
    std::deque<std::shared_ptr<SendState>> sends;               // in posting order
    std::deque<std::shared_ptr<SendState>> unreleased;          // direct sends published, not yet read
    std::deque<std::shared_ptr<RecvState>> posted;              // unmatched receives, in posting order
    std::deque<std::shared_ptr<BufferedMessage>> buffered;      // arrived before their receive
    Sink current;                                                // message being received
    bool receiving = false;
  };

  // The peer's state; std::invalid_argument when no channel reaches it.
  Peer& reachable(int peer);
  RequestPtr post(const std::shared_ptr<RecvState>& recv);
  void progress_sends(Peer& peer);
  void progress_receives(int from, Peer& peer);
  bool match(int from, Peer& peer, const ShmFragment& first);
  // Where a fragment's bytes are: the slot's payload, or the sender's registered memory.
  const std::byte* fragment_data(int from, const ShmChannel& channel, const ShmFragment& fragment) const;
  struct Region {
    std::span<const std::byte> own;
    std::vector<std::span<const std::byte>> mapped_peers;
  };
  // The registered region holding all of `data`, or nullptr.
  const std::pair<const std::int64_t, Region>* region_holding(std::span<const std::byte> data) const;
  void bind(int from, const std::shared_ptr<RecvState>& recv, std::uint64_t message_bytes);

  int rank_;
  std::string label_;
  std::vector<Peer> peers_;
  std::map<std::int64_t, Region> regions_;
  std::size_t direct_min_bytes_ = default_direct_min_bytes;
};

}  // namespace ringlab
