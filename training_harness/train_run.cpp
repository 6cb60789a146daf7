#include "training_harness/train_run.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "training_harness/cifar_io.hpp"
#include "training_harness/dataset.hpp"
#include "training_harness/miniimagenet_io.hpp"

namespace ringlab::training {

namespace {

struct Shard {
  ImageSet images;
  std::uint64_t total = 0;
  std::string description;
};

Shard load_shard(const TrainRunOptions& options, int rank, int nranks) {
  const ModelConfig& model = options.config.model;
  Shard shard;
  if (!options.data_folder.empty() && model.image_size == cifar_image_size && model.classes == cifar_classes) {
    const auto files = cifar_training_files(options.data_folder);
    shard.total = count_cifar_records(files);
    const auto wanted = records_of_rank(shard.total, options.config.global_batch, options.steps, rank, nranks);
    shard.images = read_cifar_records(files, wanted);
    shard.description = fmt::format("CIFAR-10 binary: {} files, {} records in {}", files.size(), shard.total,
                                    options.data_folder);
  } else if (!options.data_folder.empty()) {  // any other geometry: the mini-ImageNet layout
    const ImageGeometry geometry{model.image_size, model.channels, model.classes};
    const auto files = mini_imagenet_files(options.data_folder);
    shard.total = count_mini_imagenet_records(files, geometry);
    const auto wanted = records_of_rank(shard.total, options.config.global_batch, options.steps, rank, nranks);
    shard.images = read_mini_imagenet_records(files, geometry, wanted);
    shard.description = fmt::format("mini-ImageNet binary: {} files, {} records of {}x{} images, {} classes in {}",
                                    files.size(), shard.total, model.image_size, model.image_size, model.classes,
                                    options.data_folder);
  } else {
    if (options.synthetic_records == 0)
      throw std::invalid_argument("give the data: --data DIR (CIFAR-10 or mini-ImageNet binary files, docs/training.md) or --synthetic N (records)");
    shard.total = options.synthetic_records;
    const auto wanted = records_of_rank(shard.total, options.config.global_batch, options.steps, rank, nranks);
    shard.images = make_synthetic(wanted, model.image_size, model.classes, options.data_seed);
    shard.description = fmt::format("synthetic: {} records of {}x{} images, {} classes, seed {}", shard.total,
                                    model.image_size, model.image_size, model.classes, options.data_seed);
  }
  return shard;
}

}  // namespace

TrainRunResult run_training(Communicator& comm, const TrainRunOptions& options,
                            const std::function<void(const TrainRunResult&)>& on_start,
                            const std::function<void(const StepSummary&)>& on_step) {
  if (options.steps < 1) throw std::invalid_argument("--steps must be at least 1");
  check_config(options.config, comm.size());
  const std::string agreement =
      fmt::format("mode={} algo={} model={} batch={} steps={} seed={} bucket={} data={}|{} compute={}",
                  name_of(options.config.mode), options.config.algorithm, options.config.model.describe(),
                  options.config.global_batch, options.steps, options.config.seed, options.config.bucket_bytes,
                  options.data_folder, options.synthetic_records, name_of(options.compute));
  check_ranks_agree(comm, agreement, options.config.execute.timeout, "the training options");
  const Shard shard = load_shard(options, comm.rank(), comm.size());
  const auto compute = make_compute(options.compute, comm.rank());
  auto trainer = make_trainer(options.config, comm, *compute);

  TrainRunResult result;
  result.parameters = count_parameters(options.config.model);
  result.gradient_buckets = trainer->gradient_buckets();
  result.data_records = shard.total;
  result.data_description = shard.description;
  result.compute_name = compute->name();
  on_start(result);
  const double ranks = comm.size();
  Tensor images;
  std::vector<std::uint8_t> labels;
  for (int s = 0; s < options.steps; ++s) {
    fill_batch(shard.images, shard.total, options.config.global_batch, s, comm.rank(), comm.size(), images, labels);
    const StepResult step = trainer->step(images, labels);
    double largest[2] = {step.seconds, -step.comm_seconds};  // max time, min communication
    double sums[2] = {step.seconds - step.comm_seconds, step.comm_seconds};
    trainer->collectives().allreduce_untimed(largest, ReduceOp::max);
    trainer->collectives().allreduce_untimed(sums, ReduceOp::sum);
    StepSummary summary;
    summary.step = s;
    summary.loss = step.loss;
    summary.accuracy = step.accuracy;
    summary.iteration_seconds = largest[0];
    summary.compute_seconds = sums[0] / ranks;
    summary.communication_seconds = -largest[1];
    summary.idle_seconds = sums[1] / ranks - summary.communication_seconds;
    result.steps.push_back(summary);
    on_step(summary);
  }
  const TimedCollectives& collectives = trainer->collectives();
  for (const auto& [name, totals] :
       {std::pair{"allreduce", collectives.allreduce_totals()}, std::pair{"allgather", collectives.allgather_totals()},
        std::pair{"reduce_scatter", collectives.reduce_scatter_totals()}})
    result.collectives.push_back({name, static_cast<double>(totals.calls) / options.steps,
                                  static_cast<double>(totals.bytes) / options.steps});
  result.auto_choices = collectives.auto_choices();
  double checksum = 0.0;
  for (float value : trainer->gather_parameters()) checksum += std::abs(static_cast<double>(value));
  result.parameter_checksum = checksum;
  return result;
}

}  // namespace ringlab::training
