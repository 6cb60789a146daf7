// The real networks' layer lists (totals computed by the code against the published figures),
// compute profiles, the iteration plan's byte counts, and the simulator's pricing of the plan.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "topology/presets.hpp"
#include "workload/workload.hpp"
#include "workload/workload_plan.hpp"
#include "simulator/workload_prediction.hpp"
#include "workload/workload_profile.hpp"
#include "workload/workload_report.hpp"

namespace ringlab::training {
namespace {

// Published totals: torchvision's vgg16 (138,357,544), alexnet (61,100,840), resnet50 (25,557,032).
TEST(WorkloadTotals, ParameterCountsMatchThePublishedModels) {
  const Workload vgg = make_workload("vgg16-imagenet");
  EXPECT_EQ(vgg.backbone_parameters() + vgg.head_parameters(), 138'357'544);
  EXPECT_EQ(vgg.backbone_parameters(), 14'714'688);  // the 14.7 M conv parameters
  EXPECT_EQ(vgg.head_parameters(), 123'642'856);     // and 123.6 M fc parameters
  EXPECT_EQ(vgg.feature_elements(), 25'088);
  const Workload alexnet = make_workload("alexnet");
  EXPECT_EQ(alexnet.backbone_parameters() + alexnet.head_parameters(), 61'100'840);
  EXPECT_EQ(alexnet.feature_elements(), 9'216);
  const Workload resnet = make_workload("resnet50");
  EXPECT_EQ(resnet.backbone_parameters() + resnet.head_parameters(), 25'557'032);
  EXPECT_EQ(resnet.head_parameters(), 2'049'000);
  EXPECT_EQ(resnet.feature_elements(), 2'048);
}

// Forward multiply-adds per sample, published as ~15.5 G (VGG-16), ~4.1 G (ResNet-50) and
// ~0.71 G (AlexNet) at 224x224.
TEST(WorkloadTotals, ForwardMultiplyAddsMatchThePublishedFigures) {
  EXPECT_NEAR(make_workload("vgg16-imagenet").forward_macs_per_sample(), 15.5e9, 0.1e9);
  EXPECT_NEAR(make_workload("resnet50").forward_macs_per_sample(), 4.1e9, 0.1e9);
  EXPECT_NEAR(make_workload("alexnet").forward_macs_per_sample(), 0.71e9, 0.02e9);
}

TEST(WorkloadTotals, SmallImagesShrinkTheFeatures) {
  const Workload mini = make_workload("vgg16-miniimagenet");
  EXPECT_EQ(mini.feature_elements(), 512 * 2 * 2);  // 84 -> 42 -> 21 -> 10 -> 5 -> 2
  EXPECT_EQ(mini.backbone_parameters(), 14'714'688);
  EXPECT_EQ(mini.head_parameters(), (2048 * 4096 + 4096) + (4096 * 4096 + 4096) + (4096 * 100 + 100));
  const Workload cifar = make_workload("vgg16-cifar10");
  EXPECT_EQ(cifar.feature_elements(), 512);
  EXPECT_EQ(cifar.layers.back().out_channels, 10);
}

TEST(WorkloadTotals, UnknownWorkloadNamesTheValidOnes) {
  try {
    make_workload("vgg19");
    FAIL() << "vgg19 was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("unknown workload 'vgg19'; pick one of vgg16-cifar10"), std::string::npos);
  }
}

TEST(WorkloadProfile, ThroughputGivesTwoFlopsPerMacAndBackwardTwiceForward) {
  const Workload w = make_workload("alexnet");
  const ComputeProfile p = profile_from_throughput(w, 10);
  ASSERT_EQ(p.layers.size(), w.layers.size());
  EXPECT_DOUBLE_EQ(p.layers[0].forward_seconds_per_sample, 2 * w.layers[0].forward_macs_per_sample / 10e12);
  EXPECT_DOUBLE_EQ(p.layers[0].backward_seconds_per_sample, 2 * p.layers[0].forward_seconds_per_sample);
  EXPECT_THROW(profile_from_throughput(w, 0), std::invalid_argument);
}

TEST(WorkloadProfile, JsonRoundTripAndFieldErrors) {
  const Workload w = make_workload("vgg16-cifar10");
  const nlohmann::json document = to_json(profile_from_throughput(w, 5));
  const ComputeProfile back = profile_from_json(document, w, "p.json");
  EXPECT_EQ(back.layers[3].forward_seconds_per_sample, profile_from_throughput(w, 5).layers[3].forward_seconds_per_sample);
  const auto message = [&](nlohmann::json bad) {
    try {
      profile_from_json(bad, w, "p.json");
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  nlohmann::json negative = document;
  negative["layers"][3]["forward_seconds_per_sample"] = -1;
  EXPECT_EQ(message(negative), "p.json: layers[3].forward_seconds_per_sample is -1; give seconds in [0, 3600]");
  nlohmann::json huge = document;
  huge["layers"][1]["backward_seconds_per_sample"] = 1e300;
  EXPECT_EQ(message(huge), "p.json: layers[1].backward_seconds_per_sample is 1e+300; give seconds in [0, 3600]");
  nlohmann::json missing = document;
  missing["layers"][2].erase("backward_seconds_per_sample");
  EXPECT_NE(message(missing).find("p.json: layers[2].backward_seconds_per_sample is missing"), std::string::npos);
  nlohmann::json other = document;
  other["workload"] = "alexnet";
  EXPECT_NE(message(other).find("workload is 'alexnet' but the run replays 'vgg16-cifar10'"), std::string::npos);
}

// The bytes docs/training.md gives per iteration, from the formulas, not from the plan's code.
TEST(WorkloadPlan, DpAndHybridMoveTheDocumentedBytes) {
  const Workload w = make_workload("vgg16-miniimagenet");
  const ComputeProfile profile = profile_from_throughput(w, 10);
  const std::int64_t n = 4, b = 32, f = 2048, p_b = w.backbone_parameters();
  const IterationPlan dp = make_iteration_plan(w, profile, ReplayMode::dp, 4, 32, 25u << 20);
  EXPECT_EQ(dp.totals(PhaseKind::allreduce).bytes, 4 * (p_b + w.head_parameters()));
  EXPECT_EQ(dp.totals(PhaseKind::allgather).calls, 0);
  const IterationPlan hybrid = make_iteration_plan(w, profile, ReplayMode::hybrid, 4, 32, 25u << 20);
  EXPECT_EQ(hybrid.totals(PhaseKind::allreduce).bytes, 4 * p_b);
  EXPECT_EQ(hybrid.totals(PhaseKind::allgather).calls, 5);
  EXPECT_EQ(hybrid.totals(PhaseKind::allgather).bytes, 4 * (b * f + b + n * b * (1024 + 1024 + 25)));
  EXPECT_EQ(hybrid.totals(PhaseKind::reduce_scatter).calls, 3);
  EXPECT_EQ(hybrid.totals(PhaseKind::reduce_scatter).bytes, 4 * (n * b * 1024 + n * b * 1024 + b * f));
  // The same compute in both modes up to the head's padding (100 classes on 4 ranks: 25 each).
  EXPECT_NEAR(hybrid.compute_seconds(), dp.compute_seconds(), 1e-12);
}

TEST(WorkloadPlan, RefusesBadBatchesAndHeadlessHybrid) {
  const Workload w = make_workload("vgg16-cifar10");
  const ComputeProfile profile = profile_from_throughput(w, 10);
  EXPECT_THROW(make_iteration_plan(w, profile, ReplayMode::dp, 4, 30, 1 << 20), std::invalid_argument);
  EXPECT_THROW(make_iteration_plan(w, profile_from_throughput(make_workload("alexnet"), 1), ReplayMode::dp, 2, 4, 1 << 20),
               std::invalid_argument);
  EXPECT_THROW(parse_replay_mode("model"), std::invalid_argument);
}

TEST(WorkloadPlan, BucketsFollowReverseOrderAndSizeLimit) {
  // 4-byte floats: a 100-byte limit holds 25 elements.
  EXPECT_EQ(bucket_counts({10, 10, 10, 30, 5}, 100), (std::vector<std::int64_t>{5, 30, 20, 10}));
  EXPECT_EQ(bucket_counts({10, 10}, 1 << 20), (std::vector<std::int64_t>{20}));
}

TEST(WorkloadPrediction, DeterministicSumOfPhasesAndHybridNeedsGatherAndScatter) {
  const Workload w = make_workload("vgg16-miniimagenet");
  const ComputeProfile profile = profile_from_throughput(w, 50);
  const Topology topology = make_preset_topology("nvswitch:8");
  const IterationPlan hybrid = make_iteration_plan(w, profile, ReplayMode::hybrid, 8, 64, 25u << 20);
  simulator::WorkloadPredictor first(topology, "flow-level", 1e-10, 1 << 20);
  simulator::WorkloadPredictor second(topology, "flow-level", 1e-10, 1 << 20);
  const simulator::IterationPrediction a = first.predict(hybrid, "ring");
  const simulator::IterationPrediction b = second.predict(hybrid, "ring");
  EXPECT_EQ(a.phase_seconds, b.phase_seconds);
  EXPECT_DOUBLE_EQ(a.iteration_seconds, a.compute_seconds + a.communication_seconds);
  EXPECT_DOUBLE_EQ(a.compute_seconds, hybrid.compute_seconds());
  EXPECT_GT(a.communication_seconds, 0);
  EXPECT_THROW(first.predict(hybrid, "halving_doubling"), std::invalid_argument);
  // dp all-reduces 4 x 40.3 M bytes, hybrid 4 x 14.7 M plus small activations: on the same
  // topology its communication must be smaller.
  const IterationPlan dp = make_iteration_plan(w, profile, ReplayMode::dp, 8, 64, 25u << 20);
  EXPECT_LT(a.communication_seconds, first.predict(dp, "ring").communication_seconds);
}

}  // namespace
}  // namespace ringlab::training

namespace ringlab::training {
namespace {

TEST(WorkloadPlan, MeanAndMedianLeaveOutTheFirstIteration) {
  const std::vector<IterationTimes> times = {{9, 0, 0, 0}, {1, 0, 0, 0}, {5, 0, 0, 0}, {2, 0, 0, 0}, {100, 0, 0, 0}};
  EXPECT_DOUBLE_EQ(mean_after_first(times).iteration_seconds, 27.0);
  EXPECT_DOUBLE_EQ(median_iteration_after_first(times), 3.5);
  EXPECT_DOUBLE_EQ(median_iteration_after_first({{4, 0, 0, 0}}), 4.0);
}

}  // namespace
}  // namespace ringlab::training
