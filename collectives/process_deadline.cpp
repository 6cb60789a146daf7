#include "collectives/process_deadline.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace ringlab {

ProcessDeadline::ProcessDeadline(Clock::time_point deadline, std::string message, int status)
    : deadline_(deadline), message_(std::move(message)), status_(status), thread_([this] { watch(); }) {}

ProcessDeadline::~ProcessDeadline() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
}

std::unique_lock<std::mutex> ProcessDeadline::hold() { return std::unique_lock(mutex_); }

void ProcessDeadline::watch() {
  std::unique_lock lock(mutex_);
  if (stop_signal_.wait_until(lock, deadline_, [this] { return stopped_; })) return;
  // The lock stays held: nothing holding the deadline off can start from here to the exit.
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", message_.c_str());
  std::fflush(stderr);
  std::_Exit(status_);
}

}  // namespace ringlab
