// The `cuda-peer` backend: one process drives N ranks, one thread each, on N GPUs or as several
// virtual ranks sharing a GPU (--ranks-per-gpu). Matching is the threads backend's (mailboxes
// per rank pair, strict posting order); only the data movement differs:
// 1. every rank has its own stream on its device; the executor's copies, reductions (the
//    kernels of device_reduce.hpp) and divisions run on it, asynchronously;
// 2. when a send meets its receive, an event is recorded on the sender's stream ("ready"), the
//    receiver's stream waits for it, and the copy is queued on the receiver's stream
//    (cudaMemcpyPeerAsync between GPUs, cudaMemcpyAsync on one GPU), followed by a "done" event;
// 3. the receive is complete at that point (what follows on the receiver's stream runs after the
//    copy); the send completes when the sender's stream has been made to wait for "done", so the
//    sender may overwrite the buffer in stream order;
// 4. host memory (the executor's agreement messages, the bench's timings) is copied with memcpy
//    at the match, and host reductions run on the CPU, so control traffic works unchanged.
// A combining receive (post_recv_reduce) queues the reduce kernel instead of the copy, reading
// the sender's buffer where it is (target = base (op) send): a reduce-scatter step moves its
// chunk through memory once instead of copying it into scratch and reading it back. It is
// offered where the receiver's device can read the sender's memory: the same GPU, or two GPUs
// with peer access. Peer access is enabled between every pair of distinct GPUs that allows it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/backends/threads_communicator.hpp"
#include "collectives/cuda/device_communicator.hpp"

namespace ringlab::cuda {

class CudaPeerWorld;

// Offers the combining receive besides DeviceCommunicator's capabilities.
class CudaPeerCommunicator final : public DeviceCommunicator, public ReceiveReduce {
 public:
  // Runs on the rank's own thread: makes the rank's device current for it. `matching` is the
  // threads world whose transport moves this world's data (run_cuda_peer makes both).
  CudaPeerCommunicator(std::shared_ptr<CudaPeerWorld> world, int rank, std::shared_ptr<ThreadsWorld> matching);
  ~CudaPeerCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override;
  std::string_view backend_name() const override { return "cuda-peer"; }
  int device() const { return device_; }

  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override;
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override;
  ReceiveReduce* receive_reduce() override { return this; }
  bool can_reduce_on_receive(int peer) const override;
  RequestPtr post_recv_reduce(std::span<std::byte> target, const std::byte* base, int peer, int tag, DataType type,
                              ReduceOp op) override;
  void barrier(Clock::time_point deadline) override;
  void abort(std::string_view reason) override;
  std::string transport_description() const override;
  cudaStream_t stream() const override;
  DeviceContext context() const override { return {rank_, device_}; }

 private:
  std::shared_ptr<CudaPeerWorld> world_;
  int rank_;
  int device_;
  ThreadsCommunicator matching_;
};

// Runs body(communicator) on one thread per rank, rank r on device devices[r] (from
// assign_devices); as run_threads, an exception on any rank aborts the others and is rethrown
// once every thread has been joined.
void run_cuda_peer(const std::vector<int>& devices, const std::function<void(Communicator&)>& body);

}  // namespace ringlab::cuda
