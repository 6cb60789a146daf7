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
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "communicator.hpp"
#include "datatype.hpp"
#include "shm_channel.hpp"

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
  void bind(int from, const std::shared_ptr<RecvState>& recv, std::uint64_t message_bytes);

  int rank_;
  std::string label_;
  std::vector<Peer> peers_;
};

}  // namespace ringlab
