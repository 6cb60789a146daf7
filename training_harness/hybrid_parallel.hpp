// hybrid mode: data-parallel backbone, model-parallel fully connected head.
#pragma once

#include <memory>

#include "training_harness/trainer.hpp"

namespace ringlab::training {

// Head layer l with `outputs` neurons on N ranks: slice width s = ceil(outputs / N); rank r owns
// neurons [r*s, min(outputs, (r+1)*s)) (trailing ranks may own fewer, or none).
struct HeadSlice {
  int width = 0;  // s, the padded per-rank block
  int first = 0;  // first neuron this rank owns
  int count = 0;  // neurons this rank owns
};
HeadSlice head_slice(int outputs, int nranks, int rank);

std::unique_ptr<Trainer> make_hybrid_trainer(const TrainConfig& config, Communicator& comm, const Compute& compute);

}  // namespace ringlab::training
