#include "rank_placement.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace ringlab::bench {

namespace {

constexpr int placement_tag = 31001;  // above every step tag, below the executor's agreement tags
constexpr std::size_t message_bytes = 256;

struct Message {
  std::int32_t count = 0;
  std::array<char, message_bytes - sizeof(std::int32_t)> list{};
};

}  // namespace

std::vector<std::string> cpu_lists(const std::vector<RankCpus>& ranks) {
  std::vector<std::string> lists;
  for (const RankCpus& cpus : ranks) lists.push_back(cpus.list);
  return lists;
}

std::string cpu_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string text;
  for (std::size_t first = 0; first < cpus.size();) {
    std::size_t last = first;
    while (last + 1 < cpus.size() && cpus[last + 1] == cpus[last] + 1) ++last;
    if (!text.empty()) text += ',';
    if (last - first >= 2)
      text += fmt::format("{}-{}", cpus[first], cpus[last]);
    else
      for (std::size_t i = first; i <= last; ++i) text += fmt::format("{}{}", i == first ? "" : ",", cpus[i]);
    first = last + 1;
  }
  return text;
}

RankCpus this_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return {cpu_list(cpus), static_cast<int>(cpus.size())};
}

std::vector<RankCpus> gather_rank_cpus(Communicator& comm, std::chrono::steady_clock::time_point deadline) {
  const RankCpus own = this_thread_cpus();
  Message mine;
  mine.count = own.count;
  std::memcpy(mine.list.data(), own.list.data(), std::min(own.list.size(), mine.list.size() - 1));
  auto bytes = [](Message& message) { return std::as_writable_bytes(std::span(&message, 1)); };
  if (comm.rank() != 0) {
    comm.post_send(bytes(mine), 0, placement_tag)->wait(deadline, "rank placement (sending this rank's CPUs)");
    return {};
  }
  std::vector<RankCpus> ranks{own};
  for (int peer = 1; peer < comm.size(); ++peer) {
    Message theirs;
    comm.post_recv(bytes(theirs), peer, placement_tag)->wait(deadline, "rank placement (rank's CPUs)");
    ranks.push_back({std::string(theirs.list.data(), strnlen(theirs.list.data(), theirs.list.size())), theirs.count});
  }
  return ranks;
}

std::string describe_placement(const std::vector<RankCpus>& ranks) {
  if (ranks.empty()) return {};
  const bool same =
      std::all_of(ranks.begin(), ranks.end(), [&](const RankCpus& r) { return r.list == ranks.front().list; });
  if (same && ranks.size() > 1 && ranks.front().count > 1) {
    std::string text = fmt::format("not bound: every rank may run on CPUs {}", ranks.front().list);
    if (static_cast<int>(ranks.size()) > ranks.front().count)
      text += fmt::format("; {} ranks on {} CPUs, so the OS decides which ranks share a CPU and the times change "
                          "with it from run to run (bind the ranks to CPUs; mpi backend: mpiexec -bind-to core)",
                          ranks.size(), ranks.front().count);
    return text;
  }
  const bool one_each = std::all_of(ranks.begin(), ranks.end(), [](const RankCpus& r) { return r.count == 1; });
  std::string text = one_each ? "each rank bound to one CPU:" : "CPUs per rank:";
  for (std::size_t rank = 0; rank < ranks.size(); ++rank)
    text += fmt::format(" {}:{}", rank, ranks[rank].list.empty() ? "?" : ranks[rank].list);
  return text;
}

}  // namespace ringlab::bench
