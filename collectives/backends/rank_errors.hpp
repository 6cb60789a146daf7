// How the ranks of a threads (or cuda-peer) job say why they ended: the rank that failed prints
// its error once, the ranks that only stopped because the job was aborted print nothing each,
// and one line at the end says that they stopped (docs/launching.md#errors-from-a-multi-rank-job).
#pragma once

#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "collectives/communicator.hpp"

namespace ringlab {

// An error that a rank of a threads job has already printed as "ringlab: rank R: ..." (the
// launcher throws it in place of the rank's own): main exits non-zero without printing it again.
class ReportedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RankErrors {
 public:
  // A rank's catch block: prints "ringlab: rank R: ..." unless the same message was printed
  // already, or the job was already aborted when this rank failed (then the rank is counted as
  // stopped). Nothing is printed for a job of one rank (main prints its error).
  void rank_failed(const Communicator& comm, const std::exception& error);
  // After every rank ended: "ringlab: K other ranks stopped because rank R failed" (once),
  // when any rank stopped.
  void print_stopped() const;
  // Whether a rank printed this message (main then does not print it again).
  bool printed(const std::string& message) const;

 private:
  mutable std::mutex mutex_;
  std::set<std::string> printed_;
  std::set<int> failed_ranks_;
  int stopped_ = 0;
};

}  // namespace ringlab
