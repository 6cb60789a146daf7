#include "report/rank_placement.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

namespace ringlab::report {

namespace {

std::string this_host() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) return {};
  return host.data();
}

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
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {"", 0, this_host(), {}};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return {cpu_list(cpus), static_cast<int>(cpus.size()), this_host(), cpus};
}

std::string describe_placement(const std::vector<RankCpus>& ranks) {
  if (ranks.empty()) return {};
  const bool same =
      std::all_of(ranks.begin(), ranks.end(), [&](const RankCpus& r) { return r.list == ranks.front().list; });
  // Ranks on different hosts never share a CPU: masks only compare within a host (an unknown host
  // counts as one shared host).
  std::set<std::string> hosts;
  for (const RankCpus& r : ranks) hosts.insert(r.host);
  const bool one_rank_per_host = hosts.size() == ranks.size() && !hosts.contains("");
  if (one_rank_per_host && ranks.size() > 1) {
    std::string text = "one rank per host, CPUs per rank:";
    for (std::size_t rank = 0; rank < ranks.size(); ++rank)
      text += fmt::format(" {}:{}", rank, ranks[rank].list.empty() ? "?" : ranks[rank].list);
    return text;
  }
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

PlacementVerdict judge_placement(const std::vector<RankCpus>& ranks) {
  struct Host {
    int ranks = 0;
    std::set<int> usable;
    bool shared = false;  // two of its ranks may run on one CPU
  };
  PlacementVerdict verdict;
  if (ranks.empty()) return verdict;
  verdict.known = std::all_of(ranks.begin(), ranks.end(), [](const RankCpus& r) { return !r.cpus.empty(); });
  std::map<std::string, Host> hosts;
  for (const RankCpus& rank : ranks) {
    Host& host = hosts[rank.host];
    ++host.ranks;
    for (const int cpu : rank.cpus) host.shared |= !host.usable.insert(cpu).second;
  }
  // The most loaded host: the most ranks beyond its cores, then the most ranks, then the first name.
  auto load = [](const Host& host) {
    const int cores = static_cast<int>(host.usable.size());
    return std::make_tuple(host.ranks - cores, host.ranks);
  };
  auto worst = hosts.begin();
  for (auto it = hosts.begin(); it != hosts.end(); ++it)
    if (load(it->second) > load(worst->second)) worst = it;
  verdict.host = worst->first;
  verdict.ranks_per_host = worst->second.ranks;
  verdict.usable_cores = static_cast<int>(worst->second.usable.size());
  if (!verdict.known) return verdict;
  verdict.oversubscribed = std::any_of(hosts.begin(), hosts.end(), [](const auto& entry) {
    return entry.second.ranks > static_cast<int>(entry.second.usable.size());
  });
  verdict.bound = std::none_of(hosts.begin(), hosts.end(), [](const auto& entry) { return entry.second.shared; });
  verdict.one_core_each =
      verdict.bound && std::all_of(ranks.begin(), ranks.end(), [](const RankCpus& r) { return r.cpus.size() == 1; });
  return verdict;
}

std::string placement_verdict_line(const PlacementVerdict& verdict, int nranks) {
  const std::string host = verdict.host.empty() ? "this host" : fmt::format("host {}", verdict.host);
  if (!verdict.known)
    return fmt::format("placement: {} ranks, the CPUs of some are not known: bind the ranks (mpiexec -bind-to core) "
                       "before trusting performance figures",
                       nranks);
  if (verdict.oversubscribed)
    return fmt::format("oversubscribed: {} ranks on {} usable cores of {}: correctness and latency ordering only, "
                       "not bandwidth",
                       verdict.ranks_per_host, verdict.usable_cores, host);
  if (verdict.bound)
    return fmt::format("placement: {} ranks, {} (bound): performance figures valid", nranks,
                       verdict.one_core_each ? "one core each" : "their own cores each");
  return fmt::format("placement: {} ranks on {} usable cores of {}, not bound: the OS may put two ranks on one "
                     "core; bind them (mpiexec -bind-to core) for performance figures",
                     verdict.ranks_per_host, verdict.usable_cores, host);
}

}  // namespace ringlab::report
