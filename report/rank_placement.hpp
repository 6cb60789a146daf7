// Which CPUs each rank may run on, as a report states it (nccl-tests prints each rank's device;
// on a CPU host the CPUs are what decide the time). With more ranks than CPUs and no binding
// the OS decides which ranks share a CPU, which can move an all-reduce's time from run to run;
// `mpiexec -bind-to core` fixes the placement.
#pragma once

#include <string>
#include <vector>

namespace ringlab::report {

struct RankCpus {
  std::string list;  // "0-3,6": the CPUs the rank may run on
  int count = 0;     // how many
  std::string host = {};      // the rank's hostname (empty: not known)
  std::vector<int> cpus = {};  // the CPUs of `list`, ascending (empty: not known)
};

// What a placement allows a report to claim. Ranks share a host when their hostnames are equal;
// a host's usable cores are the CPUs in the union of its ranks' masks.
struct PlacementVerdict {
  bool known = false;           // every rank's CPUs were gathered
  bool oversubscribed = false;  // some host has more ranks than usable cores
  bool bound = false;           // no two ranks of a host may run on the same CPU
  bool one_core_each = false;   // bound, and every rank has exactly one CPU
  int ranks_per_host = 0;       // ranks on the host the verdict is about (the most loaded one)
  int usable_cores = 0;         // that host's usable cores
  std::string host;             // that host
};

// The CPUs in compact form: runs of three or more as "a-b", ascending, comma-separated.
std::string cpu_list(std::vector<int> cpus);

// Each rank's list, in rank order (what reports record as rank_cpus).
std::vector<std::string> cpu_lists(const std::vector<RankCpus>& ranks);

// The calling thread's CPUs (sched_getaffinity; an empty list when the system does not say) and
// hostname.
RankCpus this_thread_cpus();

// One line for a report: whether ranks are bound, and a warning when more ranks than CPUs share
// unbound ones. Empty for no ranks.
std::string describe_placement(const std::vector<RankCpus>& ranks);

// Pure: the verdict on ranks' placement (each rank's host and CPUs). The host it is about is the
// most loaded one: the most ranks beyond its cores, then the most ranks. No ranks: not known.
PlacementVerdict judge_placement(const std::vector<RankCpus>& ranks);

// The report header's line for a verdict over `nranks` ranks, without "# ": "oversubscribed: 8
// ranks on 2 usable cores of host X: ..." or "placement: 2 ranks, one core each (bound): ...".
std::string placement_verdict_line(const PlacementVerdict& verdict, int nranks);

}  // namespace ringlab::report
