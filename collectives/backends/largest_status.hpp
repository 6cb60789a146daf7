// What the launchers of the backends whose ranks are threads of this process share: every rank
// passes the set-up fault point, runs the request's body, and the job's status is the largest
// rank's; one rank's failure ends the job (the failing rank prints its error, the ranks it stopped
// are summed up in one line, RankErrors).
#pragma once

#include <functional>

#include "collectives/communicator.hpp"
#include "collectives/launch_request.hpp"

namespace ringlab {

// Starts one thread per rank and runs rank_body on each (run_threads, run_cuda_peer).
using RankStarter = std::function<void(const std::function<void(Communicator&)>& rank_body)>;

// Runs request.body on every rank through `start` and returns the largest status. Throws the
// failing rank's error, as ReportedError when that rank already printed it (main does not repeat it).
int largest_status(const LaunchRequest& request, const RankStarter& start);

}  // namespace ringlab
