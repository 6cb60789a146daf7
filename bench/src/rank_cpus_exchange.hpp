// Each rank's CPUs and host gathered on rank 0 over the communicator, for the placement lines of
// `ringlab bench` and `ringlab calibrate` (what the CPUs mean: report/rank_placement.hpp).
#pragma once

#include <chrono>
#include <vector>

#include "collectives/communicator.hpp"
#include "report/rank_placement.hpp"

namespace ringlab::bench {

// Every rank's CPUs and host, on rank 0 (empty elsewhere). Collective: every rank calls it. Throws
// TimeoutError when a rank does not answer by `deadline`.
std::vector<report::RankCpus> gather_rank_cpus(Communicator& comm, std::chrono::steady_clock::time_point deadline);

}  // namespace ringlab::bench
