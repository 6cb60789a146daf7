// `ringlab replay`: one rank's run of an IterationPlan (workload_plan.hpp) with real buffers and
// real collectives. Steps per iteration:
//   1. every compute phase is emulated by sleeping until its profile time has passed since the
//      phase began (sleep, not spin: ranks oversubscribed on few cores would otherwise take the
//      cores from the ranks that are communicating, and the emulated time would not hold);
//   2. every collective phase runs on TimedCollectives (the algorithm's PreparedCollective, as
//      train uses): all-reduce buckets in place on one gradient array holding every parameter
//      the plan all-reduces (real size), all-gather and reduce-scatter on a buffer of the phase's
//      full count;
//   3. after the timed window the ranks combine their timings as train does (train_run.hpp):
//      iteration = slowest rank, communication = least time in collectives, compute and idle
//      the means.
#pragma once

#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/execute.hpp"
#include "workload/workload_plan.hpp"
#include "workload/workload_report.hpp"

namespace ringlab::training {

struct ReplayResult {
  std::vector<IterationTimes> iterations;
  // Calls and buffer bytes per iteration, counted from the calls the ranks made.
  PhaseTotals allreduce, allgather, reduce_scatter;
  std::vector<SelectionChoice> auto_choices;  // algorithm "auto": what each all-reduce size ran
};

// Collective over comm's ranks; every rank passes the same plan (plan.nranks == comm.size()).
// Algorithm "auto" runs what `tuning` chooses per all-reduce size.
ReplayResult run_replay(Communicator& comm, const IterationPlan& plan, const std::string& algorithm, int iterations,
                        const ExecuteOptions& options, const SelectionTable* tuning = nullptr);

}  // namespace ringlab::training
