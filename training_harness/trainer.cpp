// Mode names, configuration checks, parameter counts and the trainer factory.
#include "training_harness/trainer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "training_harness/data_parallel.hpp"
#include "training_harness/hybrid_parallel.hpp"

namespace ringlab::training {

Mode parse_mode(const std::string& text) {
  if (text == "single") return Mode::single;
  if (text == "dp") return Mode::dp;
  if (text == "hybrid") return Mode::hybrid;
  throw std::invalid_argument(fmt::format("unknown mode '{}'; valid modes: single, dp, hybrid", text));
}

std::string_view name_of(Mode mode) {
  switch (mode) {
    case Mode::single: return "single";
    case Mode::dp: return "dp";
    case Mode::hybrid: return "hybrid";
  }
  return "?";
}

void check_config(const TrainConfig& config, int nranks) {
  if (config.mode == Mode::single && nranks != 1)
    throw std::invalid_argument(
        fmt::format("--mode single runs on one rank, but the job has {}; use --mode dp or hybrid, or one rank", nranks));
  check_algorithm(config.algorithm, config.mode == Mode::hybrid, config.tuning != nullptr);
  if (config.global_batch < 1) throw std::invalid_argument("--batch must be at least 1");
  if (config.global_batch % nranks != 0)
    throw std::invalid_argument(fmt::format("--batch {} (global) must be a multiple of the {} ranks; try --batch {}",
                                            config.global_batch, nranks,
                                            (config.global_batch / nranks + 1) * nranks));
  if (config.sgd.learning_rate <= 0.0f) throw std::invalid_argument("--lr must be positive");
  if (config.sgd.momentum < 0.0f || config.sgd.momentum >= 1.0f)
    throw std::invalid_argument("--momentum must be in [0, 1)");
  if (config.sgd.weight_decay < 0.0f) throw std::invalid_argument("--weight-decay must not be negative");
}

std::unique_ptr<Trainer> make_trainer(const TrainConfig& config, Communicator& comm, const Compute& compute) {
  check_config(config, comm.size());
  if (config.mode == Mode::hybrid) return make_hybrid_trainer(config, comm, compute);
  return make_data_parallel_trainer(config, comm, compute);
}

ParameterCounts count_parameters(const ModelConfig& model) {
  ParameterCounts counts;
  Sequential backbone = build_backbone(model, 1);
  for (const Parameter* parameter : backbone.parameters())
    counts.backbone += static_cast<std::int64_t>(parameter->value.size());
  counts.backbone_macs_per_sample = backbone.forward_macs_per_sample(model.input_shape(1));
  const std::vector<int> widths = head_widths(model);
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::int64_t weights = static_cast<std::int64_t>(widths[l]) * widths[l + 1];
    counts.head += weights + widths[l + 1];
    counts.head_macs_per_sample += static_cast<double>(weights);
  }
  return counts;
}

}  // namespace ringlab::training
