// The executor's device path without a GPU: a communicator that calls its buffers "device
// memory" (tracked address ranges) and counts the hooks. Every implementation must stay
// bit-exact with all its data work (copies, reductions, the average's division, scratch) going
// through the hooks, never mixing host and "device" pointers in one call, with every step's
// posts between begin_step() and end_step().
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>

#include "tests/allreduce_check.hpp"
#include "collectives/backends/threads_communicator.hpp"
#include "collectives/capabilities.hpp"

namespace ringlab::testing {
namespace {

struct HookCounts {
  std::atomic<int> copies{0}, reductions{0}, divisions{0}, device_scratch{0}, steps{0};
  std::atomic<int> mixed_calls{0}, unbalanced_steps{0};
};

// Offers BufferAllocation and DeviceData (over the host default), as a device backend does.
class PretendDeviceCommunicator final : public Communicator, public BufferAllocation, public DeviceData {
 public:
  PretendDeviceCommunicator(std::shared_ptr<ThreadsWorld> world, int rank, HookCounts& counts)
      : inner_(std::move(world), rank), counts_(counts) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::string_view backend_name() const override { return "pretend-device"; }
  RequestPtr post_send(std::span<const std::byte> data, int peer, int tag) override { return inner_.post_send(data, peer, tag); }
  RequestPtr post_recv(std::span<std::byte> data, int peer, int tag) override { return inner_.post_recv(data, peer, tag); }
  void barrier(Clock::time_point deadline) override { inner_.barrier(deadline); }
  void abort(std::string_view reason) override { inner_.abort(reason); }
  BufferAllocation* buffer_allocation() override { return this; }
  DeviceData* device_data() override { return this; }

  std::unique_ptr<CommBuffer> allocate_buffer(std::size_t bytes, Clock::time_point) override { return track(bytes); }
  std::unique_ptr<CommBuffer> allocate_scratch(std::size_t bytes, const void* like) override {
    if (!is_device_memory(like)) return host_data().allocate_scratch(bytes, like);
    ++counts_.device_scratch;
    return track(bytes);
  }
  bool is_device_memory(const void* pointer) const override {
    const auto* address = static_cast<const std::byte*>(pointer);
    const std::lock_guard lock(mutex_);
    auto it = ranges_.upper_bound(address);
    if (it == ranges_.begin()) return false;
    --it;
    return address < it->first + it->second;
  }
  void copy(void* target, const void* source, std::size_t bytes) override {
    ++counts_.copies;
    expect_one_kind({target, source});
    host_data().copy(target, source, bytes);
  }
  void reduce_to(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op) override {
    ++counts_.reductions;
    expect_one_kind({out, a, b});
    host_data().reduce_to(out, a, b, count, type, op);
  }
  void reduce_into(void* inout, const void* in, std::size_t count, DataType type, ReduceOp op) override {
    ++counts_.reductions;
    expect_one_kind({inout, in});
    host_data().reduce_into(inout, in, count, type, op);
  }
  void divide(void* data, std::size_t count, DataType type, int divisor) override {
    ++counts_.divisions;
    host_data().divide(data, count, type, divisor);
  }
  void begin_step() override {
    if (in_step_) ++counts_.unbalanced_steps;
    in_step_ = true;
  }
  void end_step() override {
    if (!in_step_) ++counts_.unbalanced_steps;
    in_step_ = false;
    ++counts_.steps;
  }

 private:
  // A zero-filled heap buffer whose range this communicator calls device memory; forgotten when destroyed.
  class TrackedBuffer final : public CommBuffer {
   public:
    TrackedBuffer(PretendDeviceCommunicator& owner, std::size_t bytes) : owner_(owner), memory_(bytes + 1) {
      const std::lock_guard lock(owner_.mutex_);
      owner_.ranges_[memory_.data()] = memory_.size();
    }
    ~TrackedBuffer() override {
      const std::lock_guard lock(owner_.mutex_);
      owner_.ranges_.erase(memory_.data());
    }
    std::span<std::byte> bytes() override { return std::span(memory_).first(memory_.size() - 1); }
    std::string description() const override { return "pretend device memory"; }

   private:
    PretendDeviceCommunicator& owner_;
    std::vector<std::byte> memory_;
  };

  std::unique_ptr<CommBuffer> track(std::size_t bytes) { return std::make_unique<TrackedBuffer>(*this, bytes); }
  void expect_one_kind(std::initializer_list<const void*> pointers) {
    int device = 0;
    for (const void* pointer : pointers) device += is_device_memory(pointer) ? 1 : 0;
    if (device != 0 && device != static_cast<int>(pointers.size())) ++counts_.mixed_calls;
  }

  ThreadsCommunicator inner_;
  HookCounts& counts_;
  mutable std::mutex mutex_;
  std::map<const std::byte*, std::size_t> ranges_;
  bool in_step_ = false;
};

TEST(DeviceHooks, EveryImplementationRunsItsDataWorkThroughTheHooks) {
  for (const int nranks : {2, 3, 4, 7}) {
    for (const Implementation& implementation : implementations(nranks, false)) {
      for (const ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
        for (const bool in_place : {false, true}) {
          HookCounts counts;
          std::atomic<std::int64_t> wrong{0};
          auto world = std::make_shared<ThreadsWorld>(nranks);
          run_threads(
              world, [&](int rank) { return std::make_unique<PretendDeviceCommunicator>(world, rank, counts); },
              [&](Communicator& comm) {
                const CaseResult result =
                    run_allreduce_case(comm, implementation, DataType::float32, op, 1009, in_place, 256, true);
                wrong += result.wrong + result.guard_damaged;
              });
          const std::string what = fmt::format("{} N={} {} {}", implementation.label, nranks, name_of(op),
                                               in_place ? "in-place" : "out-of-place");
          EXPECT_EQ(wrong.load(), 0) << what;
          EXPECT_EQ(counts.mixed_calls.load(), 0) << what;
          EXPECT_EQ(counts.unbalanced_steps.load(), 0) << what;
          EXPECT_GT(counts.steps.load(), 0) << what;
          EXPECT_GT(counts.reductions.load(), 0) << what;
          EXPECT_EQ(counts.divisions.load() > 0, op == ReduceOp::avg) << what;
        }
      }
    }
  }
}

TEST(DeviceHooks, ScratchForDeviceOutputComesFromTheHook) {
  // recursive_doubling sends and reduces the same chunks in one step, so its receives need scratch.
  HookCounts counts;
  auto world = std::make_shared<ThreadsWorld>(4);
  run_threads(
      world, [&](int rank) { return std::make_unique<PretendDeviceCommunicator>(world, rank, counts); },
      [&](Communicator& comm) {
        const Implementation implementation{"recursive_doubling", {}, "recursive_doubling", ""};
        EXPECT_EQ(run_allreduce_case(comm, implementation, DataType::int32, ReduceOp::sum, 4096, true, 0, true).wrong, 0);
      });
  EXPECT_GT(counts.device_scratch.load(), 0);
  EXPECT_EQ(counts.mixed_calls.load(), 0);
}

}  // namespace
}  // namespace ringlab::testing
