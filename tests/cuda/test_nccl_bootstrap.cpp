// The nccl backend's bootstrap exchange without NCCL or a GPU: over the threads backend, rank 0's
// unique id reaches every rank; a message of another job or world size is refused by name.
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/cuda/nccl_bootstrap.hpp"

namespace ringlab::cuda {
namespace {

UniqueIdBytes id_of(int rank) {
  UniqueIdBytes id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::byte>((rank * 37 + static_cast<int>(i)) & 0xff);
  return id;
}

TEST(NcclBootstrap, EveryRankGetsRankZerosId) {
  constexpr int nranks = 5;
  std::mutex mutex;
  std::vector<UniqueIdBytes> received(nranks);
  run_threads(nranks, [&](Communicator& comm) {
    const UniqueIdBytes id = exchange_unique_id(comm, id_of(comm.rank()), std::chrono::seconds(10));
    const std::lock_guard lock(mutex);
    received[static_cast<std::size_t>(comm.rank())] = id;
  });
  for (const UniqueIdBytes& id : received) EXPECT_EQ(id, id_of(0));
}

TEST(NcclBootstrap, ForeignOrMismatchedMessagesAreRefused) {
  BootstrapMessage message = make_bootstrap_message(id_of(0), 4);
  EXPECT_NO_THROW(check_bootstrap_message(message, 2, 4));
  try {
    check_bootstrap_message(message, 2, 8);
    ADD_FAILURE() << "no error";
  } catch (const CommunicationError& error) {
    EXPECT_STREQ(error.what(), "nccl backend: rank 2: rank 0 bootstraps NCCL for 4 ranks but this rank sees 8");
  }
  message.magic = 42;
  EXPECT_THROW(check_bootstrap_message(message, 1, 4), CommunicationError);
}

}  // namespace
}  // namespace ringlab::cuda
