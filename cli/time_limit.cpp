#include "time_limit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace ringlab::cli {

void add_time_limit_option(CLI::App& command, double& seconds) {
  seconds = default_time_limit_seconds;
  command
      .add_option("--time-limit", seconds,
                  "Wall-clock budget in seconds; past it the command ends with an error and writes nothing")
      ->capture_default_str();
}

std::string time_limit_message(const std::string& command, double seconds) {
  return fmt::format("{} ran past its time limit of {:g} s (--time-limit {:g}) and was stopped; no file was left "
                     "half-written. Raise --time-limit, or ask for less work (fewer ranks, sizes or algorithms)",
                     command, seconds, seconds);
}

TimeLimit::TimeLimit(std::string command, double seconds) : command_(std::move(command)), seconds_(seconds) {
  if (!std::isfinite(seconds) || seconds <= 0)
    throw std::invalid_argument(
        fmt::format("--time-limit {} is not a budget: give a finite number of seconds > 0 (default {:g})", seconds,
                    default_time_limit_seconds));
  watchdog_ = std::thread([this] { watch(); });
}

TimeLimit::~TimeLimit() {
  {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  stop_signal_.notify_all();
  watchdog_.join();
}

std::unique_lock<std::mutex> TimeLimit::hold_while_writing() { return std::unique_lock(mutex_); }

void TimeLimit::watch() {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::min(seconds_, 1e9)));
  std::unique_lock lock(mutex_);
  if (stop_signal_.wait_until(lock, deadline, [this] { return stopped_; })) return;
  // The lock stays held: no file write can start (or is in progress) from here to the exit.
  std::fflush(stdout);
  std::fprintf(stderr, "ringlab: error: %s\n", time_limit_message(command_, seconds_).c_str());
  std::fflush(stderr);
  std::_Exit(2);
}

}  // namespace ringlab::cli
