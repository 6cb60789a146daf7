#include "cli/job_options.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "collectives/communicator.hpp"

namespace ringlab::cli {

void add_timeout_option(CLI::App& command, double& seconds) {
  command
      .add_option("--timeout", seconds,
                  "Seconds any rank waits for a peer (message, barrier, configuration check) before it reports what "
                  "it waited on and the whole job ends with a non-zero status")
      ->capture_default_str();
}

std::chrono::milliseconds checked_timeout(double seconds) {
  // Also bounds it so that the deadline (now + timeout) cannot overflow the clock.
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > 1e7)
    throw std::invalid_argument(
        fmt::format("--timeout must be a positive number of seconds up to 1e7 (got {}); e.g. --timeout 60", seconds));
  return timeout_from_seconds(seconds);
}

std::optional<FaultSpec> fault_from_environment() {
  const char* text = std::getenv(fault_environment_variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  return parse_fault_spec(text);
}

}  // namespace ringlab::cli
