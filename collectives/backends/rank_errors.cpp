#include "collectives/backends/rank_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/printable.hpp"

namespace ringlab {

void RankErrors::rank_failed(const Communicator& comm, const std::exception& error) {
  if (comm.size() <= 1) return;
  const std::lock_guard lock(mutex_);
  // A rank whose wait the abort interrupted repeats the first error inside its own message.
  if (comm.aborted()) {
    ++stopped_;
    return;
  }
  failed_ranks_.insert(comm.rank());
  if (printed_.insert(error.what()).second)
    fmt::print(stderr, "ringlab: rank {}: {}\n", comm.rank(), io::printable(error.what(), true));
}

void RankErrors::print_stopped() const {
  const std::lock_guard lock(mutex_);
  if (stopped_ == 0) return;
  const std::string ranks = stopped_ == 1 ? "rank" : "ranks";
  if (failed_ranks_.empty()) {
    fmt::print(stderr, "ringlab: {} {} stopped because the job was aborted\n", stopped_, ranks);
    return;
  }
  fmt::print(stderr, "ringlab: {} other {} stopped because {} {} failed\n", stopped_, ranks,
             failed_ranks_.size() == 1 ? "rank" : "ranks", fmt::join(failed_ranks_, ", "));
}

bool RankErrors::printed(const std::string& message) const {
  const std::lock_guard lock(mutex_);
  return printed_.count(message) != 0;
}

}  // namespace ringlab
