// The three training modes over ringlab's collectives (docs/training.md):
//   single  one rank, the reference;
//   dp      every rank holds the whole model; gradients are all-reduced (sum) in fused buckets;
//   hybrid  the conv backbone is data-parallel (gradients all-reduced), the fully connected head
//           is model-parallel: every head layer is split by output neurons over the ranks
//           (Krizhevsky 2014), with all-gathers of activations forward and reduce-scatters of
//           activation gradients backward; head weight gradients stay local.
// All modes use the loss scale 1 / global batch, so summed gradients are those of the global
// mean loss and every mode computes the same update.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "training_harness/compute.hpp"
#include "training_harness/model.hpp"
#include "training_harness/sgd.hpp"
#include "training_harness/timed_collectives.hpp"

namespace ringlab::training {

enum class Mode { single, dp, hybrid };
Mode parse_mode(const std::string& text);
std::string_view name_of(Mode mode);

struct TrainConfig {
  Mode mode = Mode::single;
  std::string algorithm = "ring";
  ModelConfig model;
  int global_batch = 32;
  SgdOptions sgd;
  std::uint64_t seed = 1;
  std::size_t bucket_bytes = std::size_t{25} << 20;  // DDP's default bucket size
  ExecuteOptions execute;
  std::shared_ptr<const SelectionTable> tuning;  // --tuning FILE: what --algo auto runs per all-reduce size
};

// Throws std::invalid_argument with the fix when the configuration cannot run on `nranks`.
void check_config(const TrainConfig& config, int nranks);

struct StepResult {
  double loss = 0.0;      // mean cross-entropy over the global batch (before the update)
  double accuracy = 0.0;  // fraction of the global batch classified right (before the update)
  double seconds = 0.0;   // this rank: forward + backward + communication + update
  double comm_seconds = 0.0;  // this rank: inside timed collectives
};

struct ParameterCounts {
  std::int64_t backbone = 0;
  std::int64_t head = 0;
  double backbone_macs_per_sample = 0.0;
  double head_macs_per_sample = 0.0;
};

class Trainer {
 public:
  virtual ~Trainer() = default;
  // One SGD step on this rank's part of the global batch (fill_batch in dataset.hpp).
  virtual StepResult step(const Tensor& images, std::span<const std::uint8_t> labels) = 0;
  // The whole model's parameters, in single mode's order, on every rank (collective in hybrid).
  virtual std::vector<float> gather_parameters() = 0;
  virtual TimedCollectives& collectives() = 0;
  virtual std::size_t gradient_buckets() const = 0;
};

std::unique_ptr<Trainer> make_trainer(const TrainConfig& config, Communicator& comm, const Compute& compute);

ParameterCounts count_parameters(const ModelConfig& model);

}  // namespace ringlab::training
