#include "workload/workload_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ringlab::training {

ReplayMode parse_replay_mode(const std::string& name) {
  if (name == "dp") return ReplayMode::dp;
  if (name == "hybrid") return ReplayMode::hybrid;
  throw std::invalid_argument(fmt::format("unknown --mode '{}'; pick dp, hybrid or both", name));
}

std::string_view name_of(ReplayMode mode) { return mode == ReplayMode::dp ? "dp" : "hybrid"; }

std::string_view name_of(PhaseKind kind) {
  switch (kind) {
    case PhaseKind::compute: return "compute";
    case PhaseKind::allreduce: return "allreduce";
    case PhaseKind::allgather: return "allgather";
    case PhaseKind::reduce_scatter: return "reduce_scatter";
  }
  return "?";
}

double IterationPlan::compute_seconds() const {
  double total = 0;
  for (const Phase& phase : phases)
    if (phase.kind == PhaseKind::compute) total += phase.seconds;
  return total;
}

PhaseTotals IterationPlan::totals(PhaseKind kind) const {
  PhaseTotals totals;
  for (const Phase& phase : phases)
    if (phase.kind == kind) {
      ++totals.calls;
      totals.bytes += phase.count * static_cast<std::int64_t>(sizeof(float));
    }
  return totals;
}

std::int64_t IterationPlan::largest_count(PhaseKind kind) const {
  std::int64_t largest = 0;
  for (const Phase& phase : phases)
    if (phase.kind == kind) largest = std::max(largest, phase.count);
  return largest;
}

std::vector<std::int64_t> bucket_counts(const std::vector<std::int64_t>& tensors, std::size_t bucket_bytes) {
  std::vector<std::int64_t> buckets;
  std::size_t filled = 0;
  for (std::size_t t = tensors.size(); t-- > 0;) {
    const std::size_t bytes = static_cast<std::size_t>(tensors[t]) * sizeof(float);
    if (buckets.empty() || filled + bytes > bucket_bytes) {
      buckets.push_back(0);
      filled = 0;
    }
    buckets.back() += tensors[t];
    filled += bytes;
  }
  return buckets;
}

namespace {

void check_profile(const Workload& workload, const ComputeProfile& profile) {
  bool matches = profile.workload == workload.name && profile.layers.size() == workload.layers.size();
  for (std::size_t i = 0; matches && i < profile.layers.size(); ++i)
    matches = profile.layers[i].name == workload.layers[i].name;
  if (!matches)
    throw std::invalid_argument(fmt::format("the compute profile is of '{}', not of workload '{}'", profile.workload,
                                            workload.name));
}

void add_compute(std::vector<Phase>& phases, std::string what, double seconds) {
  phases.push_back({PhaseKind::compute, std::move(what), seconds, 0});
}

void add_gradient_allreduce(std::vector<Phase>& phases, const std::vector<const WorkloadLayer*>& layers,
                            std::size_t bucket_bytes) {
  std::vector<std::int64_t> tensors;
  for (const WorkloadLayer* layer : layers)
    tensors.insert(tensors.end(), layer->parameter_tensors.begin(), layer->parameter_tensors.end());
  const std::vector<std::int64_t> buckets = bucket_counts(tensors, bucket_bytes);
  for (std::size_t b = 0; b < buckets.size(); ++b)
    phases.push_back({PhaseKind::allreduce, fmt::format("gradient bucket {}", b), 0, buckets[b]});
}

}  // namespace

IterationPlan make_iteration_plan(const Workload& workload, const ComputeProfile& profile, ReplayMode mode,
                                  int nranks, int global_batch, std::size_t bucket_bytes) {
  check_profile(workload, profile);
  if (nranks < 1) throw std::invalid_argument("the plan needs at least one rank");
  if (global_batch < nranks || global_batch % nranks != 0)
    throw std::invalid_argument(fmt::format("--batch {} (global) must be a positive multiple of the {} ranks; try {}",
                                            global_batch, nranks, std::max(1, global_batch / nranks) * nranks));
  const std::vector<const WorkloadLayer*> head = workload.head_layers();
  if (mode == ReplayMode::hybrid && head.empty())
    throw std::invalid_argument(fmt::format("workload {} has no fully connected head to split; use --mode dp",
                                            workload.name));
  IterationPlan plan{workload.name, mode, nranks, global_batch, bucket_bytes, {}};
  const double local = static_cast<double>(global_batch / nranks);
  const double batch = global_batch;
  std::vector<Phase>& phases = plan.phases;
  std::vector<const WorkloadLayer*> backbone, all;
  for (const WorkloadLayer& layer : workload.layers) {
    all.push_back(&layer);
    if (!layer.head) backbone.push_back(&layer);
  }
  const auto time_of = [&](const WorkloadLayer* layer) -> const LayerTime& {
    return profile.layers[static_cast<std::size_t>(layer - workload.layers.data())];
  };

  if (mode == ReplayMode::dp) {
    for (const WorkloadLayer* layer : all) add_compute(phases, "forward " + layer->name, local * time_of(layer).forward_seconds_per_sample);
    for (auto it = all.rbegin(); it != all.rend(); ++it)
      add_compute(phases, "backward " + (*it)->name, local * time_of(*it).backward_seconds_per_sample);
    add_gradient_allreduce(phases, all, bucket_bytes);
    return plan;
  }

  for (const WorkloadLayer* layer : backbone)
    add_compute(phases, "forward " + layer->name, local * time_of(layer).forward_seconds_per_sample);
  const std::int64_t features = workload.feature_elements();
  phases.push_back({PhaseKind::allgather, "features", 0, global_batch * features});
  phases.push_back({PhaseKind::allgather, "labels", 0, global_batch});
  std::vector<int> slices;
  for (const WorkloadLayer* layer : head) {
    const int slice = (layer->out_channels + nranks - 1) / nranks;
    slices.push_back(slice);
    const double share = static_cast<double>(slice) / layer->out_channels;
    add_compute(phases, "forward " + layer->name, batch * share * time_of(layer).forward_seconds_per_sample);
    phases.push_back({PhaseKind::allgather, "activations " + layer->name, 0,
                      static_cast<std::int64_t>(nranks) * global_batch * slice});
  }
  for (std::size_t l = head.size(); l-- > 0;) {
    const double share = static_cast<double>(slices[l]) / head[l]->out_channels;
    add_compute(phases, "backward " + head[l]->name, batch * share * time_of(head[l]).backward_seconds_per_sample);
    const std::int64_t count = l > 0 ? static_cast<std::int64_t>(nranks) * global_batch * slices[l - 1]
                                     : global_batch * features;
    phases.push_back({PhaseKind::reduce_scatter, "input gradients " + head[l]->name, 0, count});
  }
  for (auto it = backbone.rbegin(); it != backbone.rend(); ++it)
    add_compute(phases, "backward " + (*it)->name, local * time_of(*it).backward_seconds_per_sample);
  add_gradient_allreduce(phases, backbone, bucket_bytes);
  return plan;
}

}  // namespace ringlab::training
