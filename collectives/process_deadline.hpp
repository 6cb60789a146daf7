// The one mechanism behind every "end the process if this has not finished by then" of the
// project: a blocking MPI call of the set-up that has no nonblocking form (SetupCallGuard),
// MPI_Finalize (MpiEnvironment), a command's wall-clock budget (cli/time_limit.hpp). While alive,
// a thread waits for `deadline`; if it comes first, the thread flushes standard output, prints
// `message` as one line on standard error and ends the process with `status` (std::_Exit: no
// destructors, since the thread that would run them is the one stuck). Destroying it first stops
// the thread. Costs a thread each: never on a timed path.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "collectives/communicator.hpp"

namespace ringlab {

class ProcessDeadline {
 public:
  ProcessDeadline(Clock::time_point deadline, std::string message, int status);
  ~ProcessDeadline();
  ProcessDeadline(const ProcessDeadline&) = delete;
  ProcessDeadline& operator=(const ProcessDeadline&) = delete;

  // While the returned lock lives the deadline cannot end the process (hold it around a file
  // write): past the deadline, the process ends just after it is released.
  [[nodiscard]] std::unique_lock<std::mutex> hold();

 private:
  void watch();

  Clock::time_point deadline_;
  std::string message_;
  int status_;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopped_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ringlab
