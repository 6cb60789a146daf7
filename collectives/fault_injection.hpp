// A test-only fault hook: makes one rank stall, exit or throw at a chosen step of the executor
// (or, with step=setup, during the job's set-up, before the first step), so that the tests can check that every other rank times out with a message naming what it
// waited on and that the whole job ends (docs/reliability.md). The spec comes from the
// environment variable RINGLAB_FAULT, read once by the command and passed down explicitly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace ringlab {

class Communicator;
struct RankPlan;

enum class FaultAction {
  stall,  // stop communicating for `stall_seconds` (or until the job aborts), then carry on
  exit,   // end the process at once with status 3, without MPI_Finalize (a crashed rank)
  fail,   // throw an error, as a rank with a bug would
};

// Where the fault acts: at an executor step (or a measurement round), or during the job's set-up.
enum class FaultPoint {
  step,      // "step=S": at the start of step S
  setup,     // "step=setup": once the communicator is made, before the set-up that waits on peers
             // (mpi: before the shared-memory bring-up; threads: before the agreement check)
  mpi_init,  // "step=mpi-init": mpi, before MPI_Init_thread (elsewhere the same as setup)
};

struct FaultSpec {
  int rank = 0;                  // the rank that misbehaves
  std::int64_t step = 0;         // the executor step (0-based) at whose start it acts
  std::int64_t min_bytes = 0;    // only in a call of at least this many bytes (skips small calls)
  FaultAction action = FaultAction::stall;
  double stall_seconds = 3600;
  FaultPoint point = FaultPoint::step;  // not step: acts once in set-up, never at a step (last: keeps {r, s, b, a, t} valid)
};

// The environment variable the commands read.
inline constexpr const char* fault_environment_variable = "RINGLAB_FAULT";

// Parses "rank=1,step=3,action=stall[,bytes=65536][,seconds=600]" (step=setup: during set-up);
// throws std::invalid_argument naming the bad field and the valid form.
FaultSpec parse_fault_spec(std::string_view text);
std::string describe(const FaultSpec& spec);
// Throws std::invalid_argument when spec.rank is not a rank of a job of `ranks` ranks (the
// fault would never fire).
void check_fault_rank(const FaultSpec& spec, int ranks);

// The set-up fault: acts at once when `spec` is for `rank` and one of `points`, `where` naming the
// point of the set-up in its messages. A stall polls `job_aborted` and throws CommunicationError
// once it is true. The launcher calls it once per rank at each point of the set-up.
void inject_setup_fault(const std::optional<FaultSpec>& spec, std::initializer_list<FaultPoint> points, int rank,
                        std::string_view where, const std::function<bool()>& job_aborted);

// One per rank: acts once, at the first step boundary (or measurement round) that matches the spec. Not thread-safe
// (each rank owns its own).
class FaultInjector {
 public:
  FaultInjector() = default;
  explicit FaultInjector(std::optional<FaultSpec> spec) : spec_(spec) {}
  // Called by the executor before it posts step `step` of a call moving `bytes` bytes.
  void at_step(Communicator& comm, const RankPlan& plan, std::size_t step, std::size_t bytes);
  // Called by a measurement outside the executor (calibration's ping-pong) before its round
  // `round` (the spec's step) of `bytes`-byte messages; `measurement` names it in the messages.
  void at_round(Communicator& comm, std::string_view measurement, std::size_t round, std::size_t bytes);

 private:
  bool due(const Communicator& comm, std::size_t step, std::size_t bytes);  // marks it fired when it is
  void act(Communicator& comm, const std::string& where) const;

  std::optional<FaultSpec> spec_;
  bool fired_ = false;
};

}  // namespace ringlab
