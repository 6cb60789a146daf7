// Options every multi-rank command (allreduce, bench, calibrate, train, replay) shares: the
// watchdog time-out of any single wait and the test-only fault hook (docs/reliability.md).
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <optional>

#include "collectives/fault_injection.hpp"

namespace ringlab::cli {

inline constexpr double default_timeout_seconds = 300;

// Registers --timeout SECONDS (default default_timeout_seconds) with the one help text.
void add_timeout_option(CLI::App& command, double& seconds);

// The time-out as waits take it; throws std::invalid_argument unless `seconds` is positive and finite.
std::chrono::milliseconds checked_timeout(double seconds);

// RINGLAB_FAULT parsed (std::nullopt when unset or empty); read once by each command before any
// rank starts, so a bad value is refused up front. Throws std::invalid_argument on a bad value.
std::optional<FaultSpec> fault_from_environment();

}  // namespace ringlab::cli
