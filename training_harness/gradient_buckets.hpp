// Fused gradient all-reduce as PyTorch DDP and Horovod do it: parameters are taken in reverse
// order (the order backward produces them) and packed into buckets of at most `bucket_bytes`
// (a larger parameter gets a bucket of its own); each bucket is copied into one flat buffer,
// all-reduced (sum) and copied back. The buckets run after backward finishes: this executor's
// collectives block, so there is no overlap with the backward pass.
#pragma once

#include <cstddef>
#include <vector>

#include "training_harness/tensor.hpp"
#include "training_harness/timed_collectives.hpp"

namespace ringlab::training {

class GradientBuckets {
 public:
  GradientBuckets(std::vector<Parameter*> parameters, std::size_t bucket_bytes);
  void allreduce(TimedCollectives& collectives);
  std::size_t bucket_count() const { return buckets_.size(); }

 private:
  std::vector<Parameter*> parameters_;
  std::vector<std::vector<std::size_t>> buckets_;  // indices into parameters_
  std::vector<float> flat_;
};

}  // namespace ringlab::training
