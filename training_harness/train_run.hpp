// One training run on one rank: load this rank's shard (CIFAR-10 files or synthetic images),
// build the trainer, run the steps, and combine the timings over ranks.
//
// Timings per step (all ranks synchronise once per step, after the timed window, to combine
// them and the loss):
//   iteration      the slowest rank's step time (forward, backward, collectives, update);
//   compute        mean over ranks of step time minus the time inside collectives;
//   communication  the least time any rank spent inside the step's collectives: the rank that
//                  arrives last at a collective waits least, so this is the closest measured
//                  figure to the transfers themselves;
//   idle           mean over ranks of (its time inside collectives - that least time): waiting
//                  for slower peers. compute + communication + idle = mean step time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "training_harness/compute_backends.hpp"
#include "training_harness/trainer.hpp"

namespace ringlab::training {

struct TrainRunOptions {
  TrainConfig config;
  int steps = 10;
  std::string data_folder;              // CIFAR-10 data_batch_*.bin (cifar-vgg) or mini_imagenet_*.bin files, or empty
  std::uint64_t synthetic_records = 0;  // used when data_folder is empty
  std::uint64_t data_seed = 1;
  ComputeKind compute = ComputeKind::cpu;  // --compute: where the layers' kernels run
};

struct StepSummary {
  int step = 0;
  double loss = 0.0;
  double accuracy = 0.0;
  double iteration_seconds = 0.0;
  double compute_seconds = 0.0;
  double communication_seconds = 0.0;
  double idle_seconds = 0.0;
};

struct CollectiveUse {
  std::string name;
  double calls_per_step = 0.0;
  double bytes_per_step = 0.0;  // buffer bytes per call, summed over the step's calls
};

struct TrainRunResult {
  std::vector<StepSummary> steps;
  std::vector<CollectiveUse> collectives;  // allreduce, allgather, reduce_scatter
  std::vector<SelectionChoice> auto_choices;    // --algo auto: what each all-reduce size ran
  ParameterCounts parameters;
  std::size_t gradient_buckets = 0;
  std::uint64_t data_records = 0;
  std::string data_description;
  std::string compute_name;
  double parameter_checksum = 0.0;  // sum of |w| over the whole model after the run
};

// Collective over the ranks of comm. On every rank, `on_start` runs once the data and the model
// are ready (the result without steps and collectives) and `on_step` after each step.
TrainRunResult run_training(Communicator& comm, const TrainRunOptions& options,
                            const std::function<void(const TrainRunResult&)>& on_start,
                            const std::function<void(const StepSummary&)>& on_step);

}  // namespace ringlab::training
