#include "collectives/backends/blocking_call_watchdog.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ringlab {

namespace {

std::int64_t nanoseconds(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

}  // namespace

BlockingCallWatchdog::BlockingCallWatchdog(const char* label, const char* operation, int rank)
    : label_(label), operation_(operation), rank_(rank), thread_([this] { watch(); }) {}

BlockingCallWatchdog::~BlockingCallWatchdog() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_one();
  thread_.join();
}

BlockingCallWatchdog::Armed::Armed(BlockingCallWatchdog& watchdog, Clock::time_point deadline, std::size_t elements)
    : watchdog_(watchdog) {
  watchdog_.elements_.store(elements, std::memory_order_relaxed);
  watchdog_.armed_at_ns_.store(nanoseconds(Clock::now()), std::memory_order_relaxed);
  watchdog_.deadline_ns_.store(nanoseconds(deadline), std::memory_order_release);
}

BlockingCallWatchdog::Armed::~Armed() { watchdog_.deadline_ns_.store(0, std::memory_order_release); }

void BlockingCallWatchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return stop_; })) {
    const std::int64_t deadline = deadline_ns_.load(std::memory_order_acquire);
    if (deadline == 0 || nanoseconds(Clock::now()) < deadline) continue;
    const double waited = static_cast<double>(deadline - armed_at_ns_.load(std::memory_order_relaxed)) * 1e-9;
    fmt::print(stderr,
               "ringlab: rank {}: {}: rank {}: {} of {} elements timed out after {:.1f} s: a rank never joined the "
               "collective (peer: any rank, no steps); ending this process so that the launcher ends the job\n",
               rank_, label_, rank_, operation_, elements_.load(std::memory_order_relaxed), waited);
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(1);
  }
}

SetupCallGuard::SetupCallGuard(int rank, Clock::time_point deadline, const std::string& message)
    : deadline_(deadline,
                fmt::format("ringlab: rank {}: {}; ending this process so that the launcher ends the job",
                            rank < 0 ? std::string("?") : std::to_string(rank), message),
                1) {}

}  // namespace ringlab
