// `--time-limit SECONDS`: a wall-clock budget for the commands that compute alone, without peers
// to time out on (verify, simulate, compare, topology show --routes). Past the budget the command
// ends with a message naming itself, the budget and the flag, and exit status 2.
//
// Why a watchdog thread that ends the process, not a deadline checked in the loops: the long
// loops are deep inside library code (the verifier's symbolic execution, both simulator models,
// route search, the sweep), which would all need a deadline threaded through them, and one missed
// loop would run on. Ending the process is safe for these commands: they hold no peers, and they
// write their files only at the end, whole (temp file + rename). A write in progress holds the
// watchdog off (`hold_while_writing`), so a budget that runs out then ends the command just after
// it, never half-way through a file.
#pragma once

#include <CLI/CLI.hpp>

#include <mutex>
#include <string>

#include "collectives/process_deadline.hpp"

namespace ringlab::cli {

inline constexpr double default_time_limit_seconds = 600;

// Registers --time-limit on `command` (default 600 s).
void add_time_limit_option(CLI::App& command, double& seconds);

// The message printed when `command` ran past `seconds`.
std::string time_limit_message(const std::string& command, double seconds);

// The budget as a ProcessDeadline (status 2), stopped when this ends.
class TimeLimit {
 public:
  // Throws std::invalid_argument unless `seconds` is finite and > 0; then starts the watchdog.
  TimeLimit(const std::string& command, double seconds);

  // While the returned lock lives the watchdog cannot end the process (hold it around a file write).
  [[nodiscard]] std::unique_lock<std::mutex> hold_while_writing() { return deadline_.hold(); }

 private:
  ProcessDeadline deadline_;
};

}  // namespace ringlab::cli
