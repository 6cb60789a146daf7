#include "cli/time_limit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

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

namespace {

double checked_seconds(double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0)
    throw std::invalid_argument(
        fmt::format("--time-limit {} is not a budget: give a finite number of seconds > 0 (default {:g})", seconds,
                    default_time_limit_seconds));
  return seconds;
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(seconds, 1e9)));
}

}  // namespace

TimeLimit::TimeLimit(const std::string& command, double seconds)
    : deadline_(deadline_after(checked_seconds(seconds)),
                fmt::format("ringlab: error: {}", time_limit_message(command, seconds)), 2) {}

}  // namespace ringlab::cli
