// The verifier: a symbolic proof that a schedule computes its collective, plus the figures the
// schedule implies (steps, bytes sent per rank, alpha-beta-gamma critical path).
//
// Each chunk of each rank carries the set of ranks whose input it contains (a bitset); an empty
// set means "no defined value". A send reads the start-of-step set, a recv overwrites, a
// recv_reduce unions and fails when the two sets overlap (a contribution counted twice) or one is
// empty (undefined data reduced). At the end every rank must hold what the collective promises.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/schedule.hpp"

namespace ringlab {

// Structural problems (ranks, peers, chunk ranges, plain receives writing one chunk twice in a
// step) and unmatched sends/receives, in words. Empty when the schedule is well formed.
std::vector<std::string> check_structure(const Schedule& schedule);

// What is wrong with one op of `rank` (peer outside [0, nranks), itself as peer, a chunk range
// outside the rules of schedule.hpp), in words; empty when nothing is.
std::string op_problem(const Op& op, int rank, int nranks, std::int64_t nchunks);

struct VerifyResult {
  std::vector<std::string> errors;        // first violations, in words
  std::int64_t error_count = 0;           // all violations (errors may be truncated)
  int steps = 0;
  std::vector<std::int64_t> chunks_sent;  // per rank
  double max_sent_fraction = 0.0;         // max over ranks of bytes sent / message bytes
  bool ok() const { return error_count == 0; }
};

// What verify() (and critical_path() after it) will hold and do for a schedule, estimated from
// its header and op lists before anything is allocated. The state is one bitset of nranks bits
// per (rank, chunk) plus the materialised programs; the work counts bitset words touched
// (initial and final states, every chunk received), ops, and rank visits (every step visits
// every rank, even an empty step). Counted in doubles: no overflow.
struct VerifierCost {
  double state_bytes = 0.0;
  double work = 0.0;  // word operations, ops and rank visits
};
VerifierCost verifier_cost(const Schedule& schedule);

// Limits verify() holds a schedule to, well under a workstation's memory. A ring all-reduce of
// 1024 ranks needs 0.38 GiB of state and 7.4e7 operations; one of 2048 ranks (2.0 GiB; its
// reduce-scatter 1.5 GiB) is refused. A unit of work costs nanoseconds, so the work limit is
// seconds to a minute; --time-limit bounds the rest.
inline constexpr double max_verifier_state_bytes = 0.5 * (1 << 30);
inline constexpr double max_verifier_work = 1.0 * (1 << 30);

// Empty when the schedule fits the limits above; else what it needs, the limit and what to change.
std::string verifier_cost_problem(const Schedule& schedule);

// Refuses (as an error of the result) a schedule over the limits above before allocating.
VerifyResult verify(const Schedule& schedule);

// Per-port contention-free model, the step clock's (step_clock.hpp): a message's transfer takes
// alpha + beta * max(bytes the sender sends in that step, bytes the receiver receives in that
// step) and starts when both ends have finished the previous step; a rank's step ends when its
// transfers have ended plus gamma times the bytes it reduces. The result is the latest rank's
// finish, as coefficients of the critical path. Coefficients are >= 0.
struct CostModel {
  double alpha_seconds = 0.0;
  double beta_seconds_per_byte = 0.0;
  double gamma_seconds_per_byte = 0.0;
};

// A time on the step clock that carries the terms it is made of.
struct CriticalPath {
  double seconds = 0.0;
  double latency_terms = 0.0;  // number of alphas on the path
  double beta_bytes = 0.0;     // bytes charged at beta
  double gamma_bytes = 0.0;    // bytes charged at gamma

  // Term by term.
  friend CriticalPath operator+(const CriticalPath& a, const CriticalPath& b) {
    return {a.seconds + b.seconds, a.latency_terms + b.latency_terms, a.beta_bytes + b.beta_bytes,
            a.gamma_bytes + b.gamma_bytes};
  }
  // The later finish; between equal finishes the path with more terms, so that the reported
  // coefficients are stable; the first of two equal paths.
  friend CriticalPath later_of(const CriticalPath& a, const CriticalPath& b) {
    return std::tie(b.seconds, b.latency_terms, b.beta_bytes, b.gamma_bytes) >
                   std::tie(a.seconds, a.latency_terms, a.beta_bytes, a.gamma_bytes)
               ? b
               : a;
  }
};

// Throws std::invalid_argument when the schedule is not well formed (see check_structure).
CriticalPath critical_path(const Schedule& schedule, const CostModel& model, double message_bytes);

}  // namespace ringlab
