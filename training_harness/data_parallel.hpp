// single and dp modes: the whole model on every rank; dp all-reduces gradients in buckets.
#pragma once

#include <memory>

#include "training_harness/trainer.hpp"

namespace ringlab::training {

std::unique_ptr<Trainer> make_data_parallel_trainer(const TrainConfig& config, Communicator& comm,
                                                    const Compute& compute);

}  // namespace ringlab::training
