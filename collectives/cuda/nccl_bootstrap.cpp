#include "collectives/cuda/nccl_bootstrap.hpp"

#include <fmt/format.h>

#include <vector>

namespace ringlab::cuda {

BootstrapMessage make_bootstrap_message(const UniqueIdBytes& id, int nranks) {
  return BootstrapMessage{bootstrap_magic, nranks, 0, id};
}

void check_bootstrap_message(const BootstrapMessage& message, int rank, int nranks) {
  if (message.magic != bootstrap_magic)
    throw CommunicationError(fmt::format("nccl backend: rank {}: the bootstrap message from rank 0 is not a ringlab "
                                         "one (magic {:#x}); are all ranks the same ringlab?",
                                         rank, message.magic));
  if (message.nranks != nranks)
    throw CommunicationError(fmt::format("nccl backend: rank {}: rank 0 bootstraps NCCL for {} ranks but this rank "
                                         "sees {}",
                                         rank, message.nranks, nranks));
}

UniqueIdBytes exchange_unique_id(Communicator& control, const UniqueIdBytes& id, std::chrono::milliseconds timeout) {
  const int nranks = control.size();
  BootstrapMessage message = make_bootstrap_message(id, nranks);
  const auto bytes = std::as_writable_bytes(std::span(&message, 1));
  if (control.rank() == 0) {
    std::vector<RequestPtr> sends;
    for (int peer = 1; peer < nranks; ++peer) sends.push_back(control.post_send(bytes, peer, bootstrap_tag));
    for (RequestPtr& send : sends) send->wait(Clock::now() + timeout, "NCCL bootstrap (sending the unique id)");
    return id;
  }
  control.post_recv(bytes, 0, bootstrap_tag)->wait(Clock::now() + timeout, "NCCL bootstrap (receiving the unique id)");
  check_bootstrap_message(message, control.rank(), nranks);
  return message.id;
}

}  // namespace ringlab::cuda
