#include "collectives/cuda/cuda_peer_communicator.hpp"

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "collectives/cuda/device_memory.hpp"
#include "collectives/cuda/device_reduce.hpp"

namespace ringlab::cuda {

// Per-rank devices and streams, per-device event pools, and the peer-access summary.
class CudaPeerWorld {
 public:
  explicit CudaPeerWorld(std::vector<int> devices) : devices_(std::move(devices)) {
    std::set<int> distinct(devices_.begin(), devices_.end());
    for (int device : distinct) pools_.push_back(std::make_shared<EventPool>(DeviceContext{-1, device}));
    for (std::size_t rank = 0; rank < devices_.size(); ++rank)
      streams_.push_back(std::make_unique<Stream>(DeviceContext{static_cast<int>(rank), devices_[rank]}));
    enable_peer_access(distinct);
  }

  int size() const { return static_cast<int>(devices_.size()); }
  int device(int rank) const { return devices_[static_cast<std::size_t>(rank)]; }
  cudaStream_t stream(int rank) const { return streams_[static_cast<std::size_t>(rank)]->get(); }
  EventPool& pool(int device) {
    for (const auto& pool : pools_)
      if (pool->device() == device) return *pool;
    throw std::logic_error(fmt::format("cuda-peer backend: no event pool for device {}", device));
  }
  const std::string& description() const { return description_; }
  // Whether kernels on rank `reader`'s device may read rank `owner`'s device memory.
  bool can_read(int reader, int owner) const {
    const int from = device(reader);
    const int to = device(owner);
    return from == to || readable_.count({from, to}) > 0;
  }

 private:
  void enable_peer_access(const std::set<int>& distinct) {
    const int gpus = static_cast<int>(distinct.size());
    if (gpus == 1) {
      description_ = fmt::format("cudaMemcpyAsync and reduce-on-receive kernels between {} virtual ranks on GPU {}",
                                 size(), *distinct.begin());
      return;
    }
    int pairs = 0;
    int enabled = 0;
    for (int from : distinct)
      for (int to : distinct) {
        if (from == to) continue;
        ++pairs;
        int possible = 0;
        check_cuda(cudaDeviceCanAccessPeer(&possible, from, to), {-1, from}, "cudaDeviceCanAccessPeer");
        if (possible == 0) continue;
        const ScopedDevice current({-1, from});
        const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
        else check_cuda(status, {-1, from}, fmt::format("cudaDeviceEnablePeerAccess(peer {})", to));
        readable_.insert({from, to});
        ++enabled;
      }
    description_ = fmt::format("cudaMemcpyPeerAsync between {} ranks on {} GPUs (peer access, and with it "
                               "reduce-on-receive kernels, on {} of {} GPU pairs)",
                               size(), gpus, enabled, pairs);
  }

  std::vector<int> devices_;
  std::vector<std::shared_ptr<EventPool>> pools_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::set<std::pair<int, int>> readable_;  // (device, device whose memory it may read)
  std::string description_;
};

namespace {

// Queues matched transfers on the receiver's stream (see the header for the protocol).
class PeerTransport final : public ThreadsTransport {
 public:
  void attach(std::shared_ptr<CudaPeerWorld> world) { world_ = std::move(world); }

  std::shared_ptr<void> move(const std::byte* source, std::byte* target, std::size_t bytes, int from,
                             int to) override {
    if (bytes == 0) return nullptr;
    const bool source_on_device = is_device_pointer(source);
    const bool target_on_device = is_device_pointer(target);
    if (!source_on_device && !target_on_device) {
      std::memcpy(target, source, bytes);
      return nullptr;
    }
    const DeviceContext sender{from, world_->device(from)};
    const DeviceContext receiver{to, world_->device(to)};
    wait_for_sender(sender, receiver);
    const ScopedDevice current(receiver);
    if (source_on_device && target_on_device && sender.device != receiver.device)
      check_cuda(cudaMemcpyPeerAsync(target, receiver.device, source, sender.device, bytes, world_->stream(to)),
                 receiver, fmt::format("cudaMemcpyPeerAsync({} bytes from rank {} on device {})", bytes, from,
                                       sender.device));
    else
      check_cuda(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDefault, world_->stream(to)), receiver,
                 fmt::format("cudaMemcpyAsync({} bytes from rank {})", bytes, from));
    if (!source_on_device || !target_on_device) {  // host memory involved: finish now
      check_cuda(cudaStreamSynchronize(world_->stream(to)), receiver, "cudaStreamSynchronize");
      return nullptr;
    }
    return record_done(receiver);
  }

  std::shared_ptr<void> move_reduce(const std::byte* source, std::byte* target, std::size_t bytes,
                                    const ReceiveCombine& combine, int from, int to) override {
    if (bytes == 0) return nullptr;
    const int on_device = int{is_device_pointer(source)} + int{is_device_pointer(target)} +
                          int{is_device_pointer(combine.base)};
    if (on_device == 0) return ThreadsTransport::move_reduce(source, target, bytes, combine, from, to);
    if (on_device != 3) {
      throw std::invalid_argument(fmt::format(
          "cuda-peer backend: rank {} combines a receive from rank {} with its buffers in both host and device "
          "memory; the send, the base and the target must all be device memory or all host memory",
          to, from));
    }
    const DeviceContext sender{from, world_->device(from)};
    const DeviceContext receiver{to, world_->device(to)};
    wait_for_sender(sender, receiver);
    const ScopedDevice current(receiver);
    const std::size_t count = bytes / element_size(combine.type);
    check_cuda(reduce_on_device(target, combine.base, source, count, combine.type, combine.op, world_->stream(to)),
               receiver, fmt::format("reduce kernel on receive ({} x {} {} from rank {} on device {})", count,
                                     name_of(combine.type), name_of(combine.op), from, sender.device));
    return record_done(receiver);
  }

  bool can_reduce(int from, int to) const override { return world_->can_read(to, from); }

  void send_completed(int rank, const std::shared_ptr<void>& token) override {
    const auto& done = *static_cast<const EventPool::Lease*>(token.get());
    const DeviceContext sender{rank, world_->device(rank)};
    const ScopedDevice current(sender);
    check_cuda(cudaStreamWaitEvent(world_->stream(rank), done.get(), 0), sender, "cudaStreamWaitEvent (copy done)");
  }

 private:
  // The receiver's stream waits for what the sender's stream has queued so far (the send's data).
  void wait_for_sender(const DeviceContext& sender, const DeviceContext& receiver) {
    const auto ready = world_->pool(sender.device).acquire();
    {
      const ScopedDevice current(sender);
      check_cuda(cudaEventRecord(ready->get(), world_->stream(sender.rank)), sender, "cudaEventRecord (send ready)");
    }
    const ScopedDevice current(receiver);
    check_cuda(cudaStreamWaitEvent(world_->stream(receiver.rank), ready->get(), 0), receiver,
               "cudaStreamWaitEvent (send ready)");
  }

  // The event the sender's wait turns into a stream dependency (send_completed).
  std::shared_ptr<void> record_done(const DeviceContext& receiver) {
    std::shared_ptr<EventPool::Lease> done = world_->pool(receiver.device).acquire();
    check_cuda(cudaEventRecord(done->get(), world_->stream(receiver.rank)), receiver, "cudaEventRecord (copy done)");
    return done;
  }

  std::shared_ptr<CudaPeerWorld> world_;
};

// The threads world of each cuda-peer world (the communicators share it).
std::shared_ptr<ThreadsWorld> make_matching_world(const std::shared_ptr<CudaPeerWorld>& world) {
  auto transport = std::make_shared<PeerTransport>();
  transport->attach(world);
  return std::make_shared<ThreadsWorld>(world->size(), transport);
}

}  // namespace

CudaPeerCommunicator::CudaPeerCommunicator(std::shared_ptr<CudaPeerWorld> world, int rank,
                                           std::shared_ptr<ThreadsWorld> matching)
    : world_(std::move(world)), rank_(rank), device_(world_->device(rank)), matching_(std::move(matching), rank) {
  check_cuda(cudaSetDevice(device_), {rank_, device_}, "cudaSetDevice");
}

CudaPeerCommunicator::~CudaPeerCommunicator() { cudaStreamSynchronize(world_->stream(rank_)); }

int CudaPeerCommunicator::size() const { return world_->size(); }

RequestPtr CudaPeerCommunicator::post_send(std::span<const std::byte> data, int peer, int tag) {
  return matching_.post_send(data, peer, tag);
}

RequestPtr CudaPeerCommunicator::post_recv(std::span<std::byte> data, int peer, int tag) {
  return matching_.post_recv(data, peer, tag);
}

bool CudaPeerCommunicator::can_reduce_on_receive(int peer) const { return matching_.can_reduce_on_receive(peer); }

RequestPtr CudaPeerCommunicator::post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer,
                                                  int tag, DataType type, ReduceOp op) {
  return matching_.post_recv_reduce(target, base, peer, tag, type, op);
}

void CudaPeerCommunicator::barrier(Clock::time_point deadline) { matching_.barrier(deadline); }

void CudaPeerCommunicator::abort(std::string_view reason) { matching_.abort(reason); }

std::string CudaPeerCommunicator::transport_description() const { return world_->description(); }

cudaStream_t CudaPeerCommunicator::stream() const { return world_->stream(rank_); }

void run_cuda_peer(const std::vector<int>& devices, const std::function<void(Communicator&)>& body) {
  auto world = std::make_shared<CudaPeerWorld>(devices);
  std::shared_ptr<ThreadsWorld> matching = make_matching_world(world);
  run_threads(
      matching, [&](int rank) { return std::make_unique<CudaPeerCommunicator>(world, rank, matching); }, body);
}

}  // namespace ringlab::cuda
