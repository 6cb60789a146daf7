// What both models need to walk a schedule: its ops per rank and step, and the checks that
// refuse a schedule the topology cannot run.
#pragma once

#include <cstdint>
#include <span>

#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

// The ops of one rank in one step, as written in the schedule (a circulant template's ops are
// relative; Schedule::resolve makes them absolute). Empty past the rank's last step. Inline: the
// models call it once per rank and step.
// The program a rank runs as written: the template of a circulant schedule, else its own.
inline const RankProgram& program_of(const Schedule& schedule, int rank) {
  return schedule.programs[schedule.circulant ? 0 : static_cast<std::size_t>(rank)];
}

inline std::span<const Op> step_ops(const Schedule& schedule, int rank, int step) {
  const RankProgram& program = program_of(schedule, rank);
  if (static_cast<std::size_t>(step) >= program.steps.size()) return {};
  return program.steps[static_cast<std::size_t>(step)];
}

// Whether an op (as written: a circulant template's peer is an offset) names an existing peer
// other than `rank` and a chunk range that exists.
inline bool op_in_range(const Schedule& schedule, int rank, const Op& op) {
  return op.peer >= 0 && op.peer < schedule.nranks && op.peer != rank && op.chunks.begin >= 0 &&
         op.chunks.begin < schedule.nchunks && op.chunks.end > op.chunks.begin &&
         op.chunks.end <= op.chunks.begin + schedule.nchunks;
}
[[noreturn]] void throw_op_out_of_range(const Schedule& schedule, int rank, int step, const Op& op);

// header_only: skip the per-op walk of an explicit schedule, for a caller that checks each op with
// op_in_range as it walks them anyway (a circulant template is always checked: it is small).
enum class OpChecks { all, header_only };

// Throws std::invalid_argument, naming the algorithm, the rank (or template), the step and the op,
// when count is negative, the schedule has more ranks than the topology has endpoints, its header
// is malformed, or an op names a missing peer, itself, or a chunk range that does not exist.
// Whether sends and receives match is the verifier's job.
void check_schedule(const Schedule& schedule, const Topology& topology, std::int64_t count,
                    OpChecks op_checks = OpChecks::all);

}  // namespace ringlab::simulator
