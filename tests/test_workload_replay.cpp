// `ringlab replay`'s runner on the threads backend: the calls and bytes the ranks really make are
// the plan's, the emulated compute takes the profile's time, and the plan's buckets are train's.
#include <gtest/gtest.h>

#include <mutex>

#include "collectives/backends/threads_communicator.hpp"
#include "training_harness/gradient_buckets.hpp"
#include "training_harness/replay.hpp"
#include "workload/workload.hpp"
#include "workload/workload_plan.hpp"

namespace ringlab::training {
namespace {

TEST(WorkloadReplay, RanksMakeThePlannedCallsAndSleepThePlannedCompute) {
  const Workload w = make_workload("vgg16-cifar10");  // 33.6 M parameters at full size
  const ComputeProfile profile = profile_from_throughput(w, 2);  // about 10 ms of compute per iteration
  for (ReplayMode mode : {ReplayMode::dp, ReplayMode::hybrid}) {
    const IterationPlan plan = make_iteration_plan(w, profile, mode, 2, 4, 25u << 20);
    std::mutex mutex;
    std::vector<ReplayResult> results;
    run_threads(2, [&](Communicator& comm) {
      ReplayResult result = run_replay(comm, plan, "ring", 2, ExecuteOptions{});
      const std::lock_guard lock(mutex);
      results.push_back(std::move(result));
    });
    ASSERT_EQ(results.size(), 2u);
    for (const ReplayResult& result : results) {
      for (PhaseKind kind : {PhaseKind::allreduce, PhaseKind::allgather, PhaseKind::reduce_scatter}) {
        const PhaseTotals& measured = kind == PhaseKind::allreduce   ? result.allreduce
                                      : kind == PhaseKind::allgather ? result.allgather
                                                                     : result.reduce_scatter;
        EXPECT_EQ(measured.calls, plan.totals(kind).calls) << name_of(mode) << " " << name_of(kind);
        EXPECT_EQ(measured.bytes, plan.totals(kind).bytes) << name_of(mode) << " " << name_of(kind);
      }
      const IterationTimes mean = mean_after_first(result.iterations);
      EXPECT_GE(mean.compute_seconds, plan.compute_seconds()) << name_of(mode);
      EXPECT_LT(mean.compute_seconds, plan.compute_seconds() + 0.2) << name_of(mode);
      EXPECT_GT(mean.communication_seconds, 0) << name_of(mode);
      EXPECT_GE(mean.iteration_seconds, mean.compute_seconds + mean.communication_seconds - 1e-9) << name_of(mode);
    }
  }
}

TEST(WorkloadReplay, PlanBucketsAreTrainsBuckets) {
  const Workload w = make_workload("alexnet");
  std::vector<Parameter> parameters;
  for (const WorkloadLayer& layer : w.layers)
    for (std::int64_t size : layer.parameter_tensors) {
      Parameter p;
      p.grad.resize(static_cast<std::size_t>(size));
      parameters.push_back(std::move(p));
    }
  std::vector<Parameter*> pointers;
  for (Parameter& p : parameters) pointers.push_back(&p);
  for (std::size_t bucket_bytes : {std::size_t{1} << 20, std::size_t{25} << 20, std::size_t{100} << 20}) {
    const IterationPlan plan =
        make_iteration_plan(w, profile_from_throughput(w, 1), ReplayMode::dp, 2, 2, bucket_bytes);
    EXPECT_EQ(static_cast<std::size_t>(plan.totals(PhaseKind::allreduce).calls),
              GradientBuckets(pointers, bucket_bytes).bucket_count());
  }
}

TEST(WorkloadReplay, HybridRefusesAllreduceOnlyAlgorithms) {
  const Workload w = make_workload("vgg16-cifar10");
  const IterationPlan plan = make_iteration_plan(w, profile_from_throughput(w, 100), ReplayMode::hybrid, 2, 2, 1 << 20);
  EXPECT_THROW(run_threads(2, [&](Communicator& comm) { run_replay(comm, plan, "halving_doubling", 1, {}); }),
               std::invalid_argument);
}

}  // namespace
}  // namespace ringlab::training
