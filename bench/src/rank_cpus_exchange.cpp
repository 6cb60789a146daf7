#include "bench/src/rank_cpus_exchange.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace ringlab::bench {

namespace {

constexpr int placement_tag = 31001;  // above every step tag, below the executor's agreement tags
constexpr std::size_t mask_words = CPU_SETSIZE / 64;

// One rank's CPUs as a bit mask (bit c of word c / 64 is CPU c) and its hostname.
struct Message {
  std::array<std::uint64_t, mask_words> mask{};
  std::array<char, 256> host{};
};

Message to_message(const report::RankCpus& cpus) {
  Message message;
  for (const int cpu : cpus.cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE)
      message.mask[static_cast<std::size_t>(cpu) / 64] |= std::uint64_t{1} << (static_cast<unsigned>(cpu) % 64);
  std::memcpy(message.host.data(), cpus.host.data(), std::min(cpus.host.size(), message.host.size() - 1));
  return message;
}

report::RankCpus from_message(const Message& message) {
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if ((message.mask[static_cast<std::size_t>(cpu) / 64] >> (static_cast<unsigned>(cpu) % 64)) & 1U) cpus.push_back(cpu);
  return {report::cpu_list(cpus), static_cast<int>(cpus.size()),
          std::string(message.host.data(), strnlen(message.host.data(), message.host.size())), cpus};
}

}  // namespace

std::vector<report::RankCpus> gather_rank_cpus(Communicator& comm, std::chrono::steady_clock::time_point deadline) {
  const report::RankCpus own = report::this_thread_cpus();
  Message mine = to_message(own);
  auto bytes = [](Message& message) { return std::as_writable_bytes(std::span(&message, 1)); };
  if (comm.rank() != 0) {
    comm.post_send(bytes(mine), 0, placement_tag)->wait(deadline, "rank placement (sending this rank's CPUs)");
    return {};
  }
  std::vector<report::RankCpus> ranks{own};
  for (int peer = 1; peer < comm.size(); ++peer) {
    Message theirs;
    comm.post_recv(bytes(theirs), peer, placement_tag)->wait(deadline, "rank placement (rank's CPUs)");
    ranks.push_back(from_message(theirs));
  }
  return ranks;
}

}  // namespace ringlab::bench
