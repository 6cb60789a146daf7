// Which CPUs each rank may run on, as a report states it (nccl-tests prints each rank's device;
// on a CPU host the CPUs are what decide the time). With more ranks than CPUs and no binding
// the OS decides which ranks share a CPU, and on the 2-vCPU VM of results/README.md that moved
// an all-reduce at N = 4 by up to 1.8x between runs; `mpiexec -bind-to core` fixes the placement.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "communicator.hpp"

namespace ringlab::bench {

struct RankCpus {
  std::string list;  // "0-3,6": the CPUs the rank may run on
  int count = 0;     // how many
};

// The CPUs in compact form: runs of three or more as "a-b", ascending, comma-separated.
std::string cpu_list(std::vector<int> cpus);

// Each rank's list, in rank order (what reports record as rank_cpus).
std::vector<std::string> cpu_lists(const std::vector<RankCpus>& ranks);

// The calling thread's CPUs (sched_getaffinity); an empty list when the system does not say.
RankCpus this_thread_cpus();

// Every rank's CPUs, on rank 0 (empty elsewhere). Collective: every rank calls it. Throws
// TimeoutError when a rank does not answer by `deadline`.
std::vector<RankCpus> gather_rank_cpus(Communicator& comm, std::chrono::steady_clock::time_point deadline);

// One line for a report: whether ranks are bound, and a warning when more ranks than CPUs share
// unbound ones. Empty for no ranks.
std::string describe_placement(const std::vector<RankCpus>& ranks);

}  // namespace ringlab::bench
