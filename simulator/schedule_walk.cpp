#include "simulator/schedule_walk.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace ringlab::simulator {

namespace {

std::string cannot_simulate(const Schedule& schedule) {
  return fmt::format("cannot simulate {} {} on {} ranks", schedule.algorithm, name_of(schedule.collective),
                     schedule.nranks);
}

}  // namespace

void throw_op_out_of_range(const Schedule& schedule, int rank, int step, const Op& op) {
  throw std::invalid_argument(fmt::format(
      "{}: {}, step {}: {} peer {} chunks [{},{}) is out of range", cannot_simulate(schedule),
      schedule.circulant ? std::string("template (peers are offsets)") : fmt::format("rank {}", rank), step,
      name_of(op.kind), op.peer, op.chunks.begin, op.chunks.end));
}

void check_schedule(const Schedule& schedule, const Topology& topology, std::int64_t count, OpChecks op_checks) {
  const std::string what = cannot_simulate(schedule);
  if (count < 0) throw std::invalid_argument(fmt::format("{}: count {} is negative", what, count));
  if (schedule.nranks > topology.num_endpoints())
    throw std::invalid_argument(fmt::format("{}: topology '{}' has only {} endpoints", what, topology.name(),
                                            topology.num_endpoints()));
  const std::size_t expected_programs = schedule.circulant ? 1 : static_cast<std::size_t>(schedule.nranks);
  if (schedule.nranks < 1 || schedule.nchunks < 1 || schedule.programs.size() != expected_programs ||
      (schedule.circulant && schedule.nchunks % schedule.nranks != 0))
    throw std::invalid_argument(fmt::format("{}: malformed schedule header ({} chunks, {} programs, circulant {})",
                                            what, schedule.nchunks, schedule.programs.size(), schedule.circulant));
  if (op_checks == OpChecks::header_only && !schedule.circulant) return;
  // Every op names an existing peer other than itself and a valid chunk range (a template's
  // peers are offsets, checked as rank 0's). Matching sends and receives is the verifier's job.
  for (std::size_t index = 0; index < schedule.programs.size(); ++index) {
    const int rank = static_cast<int>(index);
    const std::vector<Step>& steps = schedule.programs[index].steps;
    for (std::size_t step = 0; step < steps.size(); ++step)
      for (const Op& op : steps[step])
        if (!op_in_range(schedule, rank, op)) throw_op_out_of_range(schedule, rank, static_cast<int>(step), op);
  }
}

}  // namespace ringlab::simulator
