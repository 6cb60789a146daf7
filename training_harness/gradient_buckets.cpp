#include "training_harness/gradient_buckets.hpp"

#include <algorithm>

namespace ringlab::training {

GradientBuckets::GradientBuckets(std::vector<Parameter*> parameters, std::size_t bucket_bytes)
    : parameters_(std::move(parameters)) {
  std::size_t filled = 0;
  for (std::size_t p = parameters_.size(); p-- > 0;) {
    const std::size_t bytes = parameters_[p]->grad.size() * sizeof(float);
    if (buckets_.empty() || filled + bytes > bucket_bytes) {
      buckets_.emplace_back();
      filled = 0;
    }
    buckets_.back().push_back(p);
    filled += bytes;
  }
}

void GradientBuckets::allreduce(TimedCollectives& collectives) {
  for (const std::vector<std::size_t>& bucket : buckets_) {
    flat_.clear();
    for (std::size_t p : bucket) flat_.insert(flat_.end(), parameters_[p]->grad.begin(), parameters_[p]->grad.end());
    collectives.allreduce_sum(flat_);
    std::size_t offset = 0;
    for (std::size_t p : bucket) {
      std::vector<float>& grad = parameters_[p]->grad;
      std::copy_n(flat_.begin() + static_cast<std::ptrdiff_t>(offset), grad.size(), grad.begin());
      offset += grad.size();
    }
  }
}

}  // namespace ringlab::training
