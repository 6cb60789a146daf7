// One training iteration of a workload on N ranks as data: the ordered phases (compute, or a
// float32 collective of `count` elements) every rank runs, as `ringlab train`'s modes run them.
// `ringlab replay` executes the plan (real buffers, real collectives, compute emulated from the
// profile); `ringlab simulate --workload` prices the same plan on a topology.
//
// dp: forward and backward of the whole network on B/N samples, then the gradients all-reduced
//     in buckets (parameter tensors in reverse order, at most bucket_bytes each, a larger tensor
//     alone), after backward as train does (no overlap).
// hybrid: the backbone as dp; the head split by output neurons (slice s_l = ceil(out_l / N),
//     HeadSlice of hybrid_parallel.hpp):
//     1. backbone forward on B/N samples;
//     2. all-gather the features (B x F) and the labels (B);
//     3. per head layer l: forward on B samples, s_l neurons; all-gather N x B x s_l;
//     4. per head layer, last first: backward (B samples, s_l neurons); reduce-scatter the partial
//        input gradients: N x B x s_{l-1} between head layers, B x F below the head;
//     5. backbone backward on B/N samples; backbone gradients all-reduced in buckets.
//     The head compute is priced at the padded slice s_l (rank 0's, the largest).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/datatype.hpp"
#include "workload/workload.hpp"
#include "workload/workload_profile.hpp"

namespace ringlab::training {

// Every collective of a plan: float32 elements, summed (what replay's timed collectives run and
// simulate --workload prices).
inline constexpr DataType gradient_type = DataType::float32;
inline constexpr ReduceOp gradient_op = ReduceOp::sum;

enum class ReplayMode { dp, hybrid };
ReplayMode parse_replay_mode(const std::string& name);  // throws naming dp, hybrid
std::string_view name_of(ReplayMode mode);

enum class PhaseKind { compute, allreduce, allgather, reduce_scatter };
std::string_view name_of(PhaseKind kind);

struct Phase {
  PhaseKind kind = PhaseKind::compute;
  std::string what;          // e.g. "forward conv1_1", "bucket 3", "features"
  double seconds = 0;        // compute phases: one rank's time from the profile
  std::int64_t count = 0;    // collectives: float32 elements of the buffer
};

struct PhaseTotals {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;  // buffer bytes (count x 4) summed over the calls
};

struct IterationPlan {
  std::string workload;
  ReplayMode mode = ReplayMode::dp;
  int nranks = 1;
  int global_batch = 0;
  std::size_t bucket_bytes = 0;
  std::vector<Phase> phases;

  double compute_seconds() const;
  PhaseTotals totals(PhaseKind kind) const;
  std::int64_t largest_count(PhaseKind kind) const;
};

// Throws std::invalid_argument when the batch is no positive multiple of the ranks, the profile
// does not match the workload, or hybrid is asked of a workload without a head.
IterationPlan make_iteration_plan(const Workload& workload, const ComputeProfile& profile, ReplayMode mode,
                                  int nranks, int global_batch, std::size_t bucket_bytes);

// Bucket sizes (elements) of the fused all-reduce of `tensors` (in forward order).
std::vector<std::int64_t> bucket_counts(const std::vector<std::int64_t>& tensors, std::size_t bucket_bytes);

}  // namespace ringlab::training
