// single / dp step: forward the local batch, loss with scale 1/B (global batch), backward,
// all-reduce (sum) the gradient buckets (dp, N > 1), SGD update. The loss and accuracy of the
// global batch are summed over ranks after the timed step.
#include "training_harness/data_parallel.hpp"

#include <chrono>

#include "training_harness/gradient_buckets.hpp"
#include "training_harness/loss.hpp"

namespace ringlab::training {

namespace {

class DataParallelTrainer final : public Trainer {
 public:
  DataParallelTrainer(const TrainConfig& config, Communicator& comm, const Compute& compute)
      : config_(config),
        compute_(compute),
        collectives_(comm, config.algorithm, false, config.execute, config.tuning.get()),
        model_(build_backbone(config.model, config.seed)),
        sgd_(config.sgd) {
    append_full_head(model_, config.model, config.seed);
    parameters_ = model_.parameters();
    buckets_ = std::make_unique<GradientBuckets>(parameters_, config.bucket_bytes);
  }

  StepResult step(const Tensor& images, std::span<const std::uint8_t> labels) override {
    const auto start = std::chrono::steady_clock::now();
    const double comm_before = collectives_.seconds();
    const Tensor& logits = model_.forward(compute_, images);
    const LossResult loss =
        softmax_cross_entropy(logits, labels, 1.0f / static_cast<float>(config_.global_batch), grad_logits_);
    model_.backward(compute_, grad_logits_, false);
    if (collectives_.comm().size() > 1) buckets_->allreduce(collectives_);
    sgd_.step(parameters_);
    StepResult result;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.comm_seconds = collectives_.seconds() - comm_before;
    double metrics[2] = {loss.loss_sum, static_cast<double>(loss.correct)};
    collectives_.allreduce_untimed(metrics, ReduceOp::sum);
    result.loss = metrics[0] / config_.global_batch;
    result.accuracy = metrics[1] / config_.global_batch;
    return result;
  }

  std::vector<float> gather_parameters() override {
    std::vector<float> all;
    for (const Parameter* parameter : parameters_) all.insert(all.end(), parameter->value.begin(), parameter->value.end());
    return all;
  }

  TimedCollectives& collectives() override { return collectives_; }
  std::size_t gradient_buckets() const override { return buckets_->bucket_count(); }

 private:
  TrainConfig config_;
  const Compute& compute_;
  TimedCollectives collectives_;
  Sequential model_;
  Sgd sgd_;
  std::vector<Parameter*> parameters_;
  std::unique_ptr<GradientBuckets> buckets_;
  Tensor grad_logits_;
};

}  // namespace

std::unique_ptr<Trainer> make_data_parallel_trainer(const TrainConfig& config, Communicator& comm,
                                                    const Compute& compute) {
  return std::make_unique<DataParallelTrainer>(config, comm, compute);
}

}  // namespace ringlab::training
