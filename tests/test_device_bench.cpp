// ringlab_device_bench's host side (bench/gpu/device_bench_host.hpp), which runs without a GPU:
// its options, the kernel list, the ratios to the copy against the goal, the table and the JSON.
#include <CLI/CLI.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu/device_bench_host.hpp"

namespace ringlab::device_bench {
namespace {

using ::testing::HasSubstr;

// The message of the std::invalid_argument that `body` throws ("" if none).
template <typename Body>
std::string bench_refusal(Body&& body) {
  try {
    body();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

Options parsed(const std::string& command_line) {
  CLI::App app;
  Options options;
  add_options(app, options);
  app.parse(command_line, false);
  return options;
}

TEST(DeviceBenchOptions, DefaultsMeasureFloat32AndTheHalfTypesSumAndMinAgainst085) {
  const Options options = parsed("");
  EXPECT_EQ(options.bytes, std::size_t{1} << 30);
  EXPECT_EQ(options.repetitions, 10);
  EXPECT_EQ(options.goal, 0.85);
  EXPECT_TRUE(options.json_path.empty());
  const auto kernels = parse_kernels(options.kernels);
  const std::vector<Kernel> expected = {
      {DataType::float32, ReduceOp::sum, false},  {DataType::float32, ReduceOp::sum, true},
      {DataType::float16, ReduceOp::sum, false},  {DataType::float16, ReduceOp::sum, true},
      {DataType::float16, ReduceOp::min, false},  {DataType::float16, ReduceOp::min, true},
      {DataType::bfloat16, ReduceOp::sum, false}, {DataType::bfloat16, ReduceOp::sum, true},
      {DataType::bfloat16, ReduceOp::min, false}, {DataType::bfloat16, ReduceOp::min, true}};
  EXPECT_EQ(kernels, expected);
  EXPECT_NO_THROW(check_options(options, kernels));
}

TEST(DeviceBenchOptions, EveryOptionParses) {
  const Options options = parsed("--bytes 4096 --repetitions 3 --kernels half:max,bf16:prod --goal 0.9 --json out.json --force");
  EXPECT_EQ(options.bytes, 4096U);
  EXPECT_EQ(options.repetitions, 3);
  EXPECT_EQ(options.goal, 0.9);
  EXPECT_EQ(options.json_path, "out.json");
  EXPECT_TRUE(options.force);
  const std::vector<Kernel> expected = {{DataType::float16, ReduceOp::max, false},
                                        {DataType::float16, ReduceOp::max, true},
                                        {DataType::bfloat16, ReduceOp::prod, false},
                                        {DataType::bfloat16, ReduceOp::prod, true}};
  EXPECT_EQ(parse_kernels(options.kernels), expected);
  CLI::App app;
  Options refused;
  add_options(app, refused);
  std::vector<std::string> empty_path = {"", "--json"};  // CLI11 takes the arguments last first
  EXPECT_THROW(app.parse(empty_path), CLI::ValidationError);
}

TEST(DeviceBenchOptions, KernelListsAreCheckedItemByItem) {
  EXPECT_EQ(parse_kernels(" float64 : min , int32:sum").size(), 4U);
  EXPECT_THAT(bench_refusal([] { parse_kernels(""); }), HasSubstr("--kernels is empty"));
  EXPECT_THAT(bench_refusal([] { parse_kernels("float16"); }), HasSubstr("'float16' is not TYPE:OP"));
  EXPECT_THAT(bench_refusal([] { parse_kernels("float16:sum,"); }), HasSubstr("'' is not TYPE:OP"));
  EXPECT_THAT(bench_refusal([] { parse_kernels("float8:sum"); }),
              HasSubstr("--kernels item 'float8:sum': unknown data type 'float8'; valid types:"));
  EXPECT_THAT(bench_refusal([] { parse_kernels("half:mean"); }), HasSubstr("unknown reduction operator 'mean'"));
  EXPECT_THAT(bench_refusal([] { parse_kernels("bf16:avg"); }), HasSubstr("avg runs the sum kernel and then a divide"));
  EXPECT_THAT(bench_refusal([] { parse_kernels("half:min,float16:min"); }), HasSubstr("names float16:min twice"));
}

TEST(DeviceBenchOptions, BytesFitTheLargestElementAndTheGoalIsAPositiveNumber) {
  Options options;
  options.bytes = 4100;  // a multiple of 4, not of 8
  EXPECT_NO_THROW(check_options(options, parse_kernels("float32:sum,float16:min")));
  EXPECT_THAT(bench_refusal([&] { check_options(options, parse_kernels("float64:sum")); }),
              HasSubstr("--bytes must be a multiple of 8 (the largest element size among --kernels) and at least 16"));
  options.bytes = 14;
  EXPECT_THAT(bench_refusal([&] { check_options(options, parse_kernels("float16:sum")); }), HasSubstr("at least 16"));
  options.bytes = 18;
  EXPECT_NO_THROW(check_options(options, parse_kernels("float16:sum")));
  options.repetitions = 0;
  EXPECT_THAT(bench_refusal([&] { check_options(options, parse_kernels("float16:sum")); }),
              HasSubstr("--repetitions must be at least 1"));
  options.repetitions = 1;
  for (double goal : {0.0, -0.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    options.goal = goal;
    EXPECT_THAT(bench_refusal([&] { check_options(options, parse_kernels("float16:sum")); }),
                HasSubstr("--goal must be a positive number")) << goal;
  }
}

TEST(DeviceBenchResult, RatesAndRatiosCountBytesMovedAndTheGoalIsComputed) {
  // 1e9-byte buffers: the copy moves 2e9 B in 1 s (2 GB/s); a reduce moves 3e9 B.
  const std::vector<std::pair<Kernel, double>> seconds = {{{DataType::float16, ReduceOp::sum, false}, 1.5},   // 2 GB/s
                                                          {{DataType::float16, ReduceOp::sum, true}, 2.0},    // 1.5 GB/s
                                                          {{DataType::bfloat16, ReduceOp::min, false}, 3.0}};  // 1 GB/s
  const Result result = summarize(1'000'000'000, 5, 0.75, 1.0, seconds);
  EXPECT_DOUBLE_EQ(result.copy_gbps, 2.0);
  ASSERT_EQ(result.rows.size(), 3U);
  EXPECT_DOUBLE_EQ(result.rows[0].gbps, 2.0);
  EXPECT_DOUBLE_EQ(result.rows[0].vs_copy, 1.0);
  EXPECT_DOUBLE_EQ(result.rows[1].vs_copy, 0.75);
  EXPECT_DOUBLE_EQ(result.rows[2].vs_copy, 0.5);
  EXPECT_TRUE(result.rows[0].meets_goal);
  EXPECT_TRUE(result.rows[1].meets_goal);  // exactly at the goal counts
  EXPECT_FALSE(result.rows[2].meets_goal);
  EXPECT_EQ(result.met(), 2U);
  EXPECT_FALSE(summarize(1'000'000'000, 5, 0.76, 1.0, seconds).rows[1].meets_goal);
}

TEST(DeviceBenchResult, TableSaysWhichKernelsMeetTheGoal) {
  const Result result = summarize(1 << 20, 10, 0.85, 1e-4,
                                  {{{DataType::float32, ReduceOp::sum, false}, 1.6e-4},
                                   {{DataType::bfloat16, ReduceOp::min, true}, 2e-4}});
  const std::string text = format_text(result, "NVIDIA H200", "runtime 13.0");
  EXPECT_THAT(text, HasSubstr("# NVIDIA H200 | CUDA runtime 13.0 | 1048576 bytes per buffer, best of 10\n"));
  EXPECT_THAT(text, HasSubstr("vs copy  >= 0.85x\n"));
  EXPECT_THAT(text, HasSubstr("cudaMemcpy device to device"));
  EXPECT_THAT(text, ::testing::ContainsRegex("reduce float32 sum out = a \\+ b +[0-9.]+ +[0-9.]+ +0\\.93[78]  met\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("reduce bfloat16 min a = min\\(a, b\\) +[0-9.]+ +[0-9.]+ +0\\.750  NOT met\n"));
  EXPECT_THAT(text, HasSubstr("# goal: each reduce kernel >= 0.85x the copy's bytes moved per second: met by 1 of 2 "
                              "(not by bfloat16 min a = min(a, b))\n"));
  EXPECT_THAT(format_text(summarize(1 << 20, 1, 0.5, 1e-4, {{{DataType::float32, ReduceOp::sum, false}, 1.6e-4}}), "",
                          "?"),
              HasSubstr("met by 1 of 1\n"));
}

TEST(DeviceBenchResult, JsonKeepsTheFirstReportsFieldsAndAddsARowPerKernel) {
  const Result result = summarize(1'000'000'000, 10, 0.85, 1.0,
                                  {{{DataType::float32, ReduceOp::sum, false}, 1.5},
                                   {{DataType::float32, ReduceOp::sum, true}, 2.0},
                                   {{DataType::float16, ReduceOp::min, false}, 1.6}});
  const nlohmann::json report = to_json(result, "NVIDIA H200", "runtime 13.0, driver 13.0");
  EXPECT_EQ(report["schema"], "ringlab.device_reduce_bench/1");
  EXPECT_EQ(report["gpu"], "NVIDIA H200");
  EXPECT_EQ(report["bytes"], 1'000'000'000U);
  EXPECT_EQ(report["repetitions"], 10);
  EXPECT_DOUBLE_EQ(report["copy_gbps"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(report["copy_seconds"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(report["goal_vs_copy"].get<double>(), 0.85);
  EXPECT_EQ(report["goal_met"], false);
  EXPECT_EQ(report["goal_met_count"], 2);
  // float32 sum: the fields the 2026-12-04 report has.
  EXPECT_DOUBLE_EQ(report["reduce_gbps"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(report["reduce_vs_copy"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(report["reduce_in_place_gbps"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(report["reduce_in_place_vs_copy"].get<double>(), 0.75);
  ASSERT_EQ(report["kernels"].size(), 3U);
  const nlohmann::json& half_min = report["kernels"][2];
  EXPECT_EQ(half_min["type"], "float16");
  EXPECT_EQ(half_min["op"], "min");
  EXPECT_EQ(half_min["in_place"], false);
  EXPECT_EQ(half_min["operation"], "reduce float16 min out = min(a, b)");
  EXPECT_DOUBLE_EQ(half_min["seconds"].get<double>(), 1.6);
  EXPECT_EQ(half_min["moved_bytes"], 3'000'000'000U);
  EXPECT_DOUBLE_EQ(half_min["gbps"].get<double>(), 3.0 / 1.6);
  EXPECT_DOUBLE_EQ(half_min["vs_copy"].get<double>(), 3.0 / 1.6 / 2.0);
  EXPECT_EQ(half_min["meets_goal"], true);
  EXPECT_EQ(report["kernels"][1]["meets_goal"], false);
  // Without float32 sum there is nothing to put in the old fields.
  const nlohmann::json half_only =
      to_json(summarize(1 << 20, 1, 0.85, 1e-4, {{{DataType::float16, ReduceOp::sum, false}, 1e-4}}), "", "");
  EXPECT_FALSE(half_only.contains("reduce_gbps"));
  EXPECT_EQ(half_only["goal_met"], true);
}

TEST(DeviceBenchResult, DescriptionsNameTypeOpAndForm) {
  EXPECT_EQ(describe({DataType::float32, ReduceOp::sum, false}), "reduce float32 sum out = a + b");
  EXPECT_EQ(describe({DataType::float32, ReduceOp::sum, true}), "reduce float32 sum a += b");
  EXPECT_EQ(describe({DataType::int64, ReduceOp::prod, true}), "reduce int64 prod a *= b");
  EXPECT_EQ(describe({DataType::bfloat16, ReduceOp::max, false}), "reduce bfloat16 max out = max(a, b)");
  EXPECT_EQ(describe({DataType::float16, ReduceOp::min, true}), "reduce float16 min a = min(a, b)");
}

}  // namespace
}  // namespace ringlab::device_bench
