// A watchdog for blocking calls that cannot time out by themselves (MPI_Allreduce, the mpi-native
// baseline: its nonblocking form is several times slower on small messages, so the baseline stays
// blocking). One thread per communicator checks every 50 ms whether the armed call has passed its
// deadline; if so it prints what the rank was waiting on and ends the process (status 1, without
// MPI: under MPI_THREAD_FUNNELED only the main thread may call MPI_Abort), and mpiexec then ends
// the job. Arming and disarming are two atomic stores, nothing on the timed path waits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "collectives/communicator.hpp"
#include "collectives/process_deadline.hpp"

namespace ringlab {

class BlockingCallWatchdog {
 public:
  // `label` (e.g. "mpi backend") and `operation` (e.g. "MPI_Allreduce") must outlive the watchdog.
  BlockingCallWatchdog(const char* label, const char* operation, int rank);
  ~BlockingCallWatchdog();
  BlockingCallWatchdog(const BlockingCallWatchdog&) = delete;
  BlockingCallWatchdog& operator=(const BlockingCallWatchdog&) = delete;

  // While alive, the process ends if the call is still running at `deadline`.
  class Armed {
   public:
    Armed(BlockingCallWatchdog& watchdog, Clock::time_point deadline, std::size_t elements);
    ~Armed();
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    BlockingCallWatchdog& watchdog_;
  };

 private:
  void watch();

  const char* label_;
  const char* operation_;
  int rank_;
  std::atomic<std::int64_t> deadline_ns_{0};  // 0: disarmed
  std::atomic<std::int64_t> armed_at_ns_{0};
  std::atomic<std::size_t> elements_{0};
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The same for one blocking call of the set-up that has no nonblocking form (MPI_Init_thread,
// MPI_Comm_split_type): while alive, at `deadline` it prints "ringlab: rank R: <message>; ending
// this process so that the launcher ends the job" and ends the process with status 1
// (a ProcessDeadline). Costs a thread per guard, so only for set-up, never on a timed path.
class SetupCallGuard {
 public:
  // `rank` is printed as given (-1: "?", before MPI knows it).
  SetupCallGuard(int rank, Clock::time_point deadline, const std::string& message);

 private:
  ProcessDeadline deadline_;
};

}  // namespace ringlab
