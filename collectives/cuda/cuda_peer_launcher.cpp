// The cuda-peer backend's launcher: the ranks are threads of this process, each on its GPU
// (assign_devices before any rank starts, so a bad layout starts nothing), each passing the set-up
// fault point before the body (largest_status). Without CUDA: how to get a build with it.
#include "collectives/launch_request.hpp"
#ifdef RINGLAB_HAVE_CUDA
#include <vector>

#include "collectives/backends/largest_status.hpp"
#include "collectives/cuda/cuda_peer_communicator.hpp"
#include "collectives/cuda/device_memory.hpp"
#endif

namespace ringlab {

#ifdef RINGLAB_HAVE_CUDA
namespace {

int launch_cuda_peer(const LaunchRequest& request) {
  const std::vector<int> devices = assign_devices(request.layout, cuda::visible_device_count());
  return largest_status(request, [&](const std::function<void(Communicator&)>& rank_body) {
    cuda::run_cuda_peer(devices, rank_body);
  });
}

}  // namespace

const Launcher cuda_peer_launcher{&launch_cuda_peer, {}};
#else
const Launcher cuda_peer_launcher{
    nullptr, "this ringlab was built without CUDA (RINGLAB_ENABLE_CUDA=OFF, or no nvcc was found); configure with "
             "-DRINGLAB_ENABLE_CUDA=ON for --backend cuda-peer"};
#endif

}  // namespace ringlab
