// The threads backend's launcher: the ranks are threads of this process, each passing the set-up
// fault point before the body (largest_status).
#include "collectives/backends/largest_status.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/launch_request.hpp"

namespace ringlab {

namespace {

int launch_threads(const LaunchRequest& request) {
  return largest_status(request, [&](const std::function<void(Communicator&)>& rank_body) {
    run_threads(request.layout.ranks, rank_body);
  });
}

}  // namespace

const Launcher threads_launcher{&launch_threads, {}};

}  // namespace ringlab
