#include "collectives/fault_injection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "io/checked_number.hpp"
#include "collectives/communicator.hpp"
#include "collectives/execute.hpp"
#include "io/printable.hpp"

namespace ringlab {

namespace {

constexpr const char* fault_form = "rank=R,step=S|setup|mpi-init,action=stall|exit|fail[,bytes=B][,seconds=T]";

std::string_view name_of(FaultAction action) {
  switch (action) {
    case FaultAction::stall: return "stall";
    case FaultAction::exit: return "exit";
    case FaultAction::fail: return "fail";
  }
  return "?";
}

template <typename Number>
Number parse_number(std::string_view field, std::string_view value) {
  Number number{};
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc{} || end != value.data() + value.size() || number < 0)
    throw std::invalid_argument(fmt::format("{}: {}='{}' is not a non-negative number; the form is {}",
                                            fault_environment_variable, field, io::printable(value), fault_form));
  return number;
}

// What a due fault does on `rank`; `where` names the point in the messages.
void act_fault(const FaultSpec& spec, int rank, const std::string& where, const std::function<bool()>& job_aborted) {
  switch (spec.action) {
    case FaultAction::stall: {
      // Stops communicating (posts nothing, answers nothing) for stall_seconds, or until the job
      // is aborted; a stall shorter than the time-out is a slow rank, which must not fail the job.
      fmt::print(stderr, "ringlab: rank {}: fault injected: stalling at {}\n", rank, where);
      std::fflush(stderr);
      const auto until = Clock::now() + timeout_from_seconds(spec.stall_seconds);
      while (Clock::now() < until) {
        if (job_aborted())
          throw CommunicationError(
              fmt::format("rank {}: injected stall at {} interrupted: the job was aborted", rank, where));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return;
    }
    case FaultAction::exit:
      fmt::print(stderr, "ringlab: rank {}: fault injected: exiting with status 3 at {}\n", rank, where);
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(3);
    case FaultAction::fail:
      throw std::runtime_error(fmt::format("fault injected: failing at {}", where));
  }
}

}  // namespace

FaultSpec parse_fault_spec(std::string_view text) {
  FaultSpec spec;
  bool have_rank = false, have_step = false, have_action = false;
  std::vector<std::string_view> seen;  // each key once: a second action= must not silently win
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos)
      throw std::invalid_argument(
          fmt::format("{}: '{}' is not key=value; the form is {}", fault_environment_variable, io::printable(item), fault_form));
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw std::invalid_argument(fmt::format("{}: '{}' is given twice; give each key once, the form is {}",
                                              fault_environment_variable, io::printable(key), fault_form));
    seen.push_back(key);
    if (key == "rank") {
      spec.rank = parse_number<int>(key, value);
      have_rank = true;
    } else if (key == "step") {
      if (value == "setup") spec.point = FaultPoint::setup;
      else if (value == "mpi-init") spec.point = FaultPoint::mpi_init;
      else spec.step = parse_number<std::int64_t>(key, value);
      have_step = true;
    } else if (key == "bytes") {
      spec.min_bytes = parse_number<std::int64_t>(key, value);
    } else if (key == "seconds") {
      spec.stall_seconds = io::parse_checked_number(value, fmt::format("{}: seconds", fault_environment_variable),
                                                    {0, 1e7, "s"});
    } else if (key == "action") {
      if (value == "stall") spec.action = FaultAction::stall;
      else if (value == "exit") spec.action = FaultAction::exit;
      else if (value == "fail") spec.action = FaultAction::fail;
      else
        throw std::invalid_argument(fmt::format("{}: unknown action '{}'; valid: stall, exit, fail",
                                                fault_environment_variable, io::printable(value)));
      have_action = true;
    } else {
      throw std::invalid_argument(fmt::format("{}: unknown key '{}'; the form is {}", fault_environment_variable, io::printable(key),
                                              fault_form));
    }
  }
  if (!have_rank || !have_step || !have_action)
    throw std::invalid_argument(fmt::format("{}: rank, step and action are required; the form is {}",
                                            fault_environment_variable, fault_form));
  return spec;
}

void check_fault_rank(const FaultSpec& spec, int ranks) {
  if (spec.rank >= ranks)
    throw std::invalid_argument(fmt::format("{}: rank={} is not a rank of this job, which has {} rank(s) (0..{})",
                                            fault_environment_variable, spec.rank, ranks, ranks - 1));
}

std::string describe(const FaultSpec& spec) {
  if (spec.point == FaultPoint::setup) return fmt::format("{} on rank {} during set-up", name_of(spec.action), spec.rank);
  if (spec.point == FaultPoint::mpi_init)
    return fmt::format("{} on rank {} before MPI_Init_thread", name_of(spec.action), spec.rank);
  return fmt::format("{} on rank {} at step {} of the first call of at least {} bytes", name_of(spec.action), spec.rank,
                     spec.step, spec.min_bytes);
}

bool FaultInjector::due(const Communicator& comm, std::size_t step, std::size_t bytes) {
  // The rank test comes first: only the chosen rank ever touches fired_.
  if (!spec_ || spec_->point != FaultPoint::step || comm.rank() != spec_->rank || fired_ || static_cast<std::int64_t>(step) != spec_->step ||
      static_cast<std::int64_t>(bytes) < spec_->min_bytes)
    return false;
  fired_ = true;
  return true;
}

void FaultInjector::at_step(Communicator& comm, const RankPlan& plan, std::size_t step, std::size_t bytes) {
  if (due(comm, step, bytes))
    act(comm, fmt::format("{} {} step {} ({} bytes)", plan.algorithm, name_of(plan.collective), step, bytes));
}

void FaultInjector::at_round(Communicator& comm, std::string_view measurement, std::size_t round, std::size_t bytes) {
  if (due(comm, round, bytes)) act(comm, fmt::format("{} round {} ({} bytes)", measurement, round, bytes));
}

void FaultInjector::act(Communicator& comm, const std::string& where) const {
  act_fault(*spec_, comm.rank(), where, [&comm] { return comm.aborted(); });
}

void inject_setup_fault(const std::optional<FaultSpec>& spec, std::initializer_list<FaultPoint> points, int rank,
                        std::string_view where, const std::function<bool()>& job_aborted) {
  if (!spec || spec->rank != rank || std::find(points.begin(), points.end(), spec->point) == points.end()) return;
  act_fault(*spec, rank, fmt::format("set-up ({})", where), job_aborted);
}

}  // namespace ringlab
