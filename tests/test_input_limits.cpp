// Input limits (issue 7, point 7): every reader refuses an absurd size up front, with a message
// naming the field, the value and the limit, instead of allocating for it. Each case is one that
// would otherwise take gigabytes or hours: a schedule with 2^20 + 1 steps in a rank, files over
// 512 MiB (sparse, so the test costs no disk), presets of 10^9 or 10^10 endpoints, a sweep of a
// billion sizes, and a mini-ImageNet header declaring 4-gigapixel images or 2^32 - 1 records.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "collectives/algorithms/algorithm.hpp"
#include "bench/src/bench_options.hpp"
#include "topology/presets.hpp"
#include "collectives/schedule_io.hpp"
#include "topology/topology_io.hpp"
#ifdef RINGLAB_HAVE_TRAINING
#include "training_harness/miniimagenet_io.hpp"
#endif

namespace ringlab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string limit_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no error)";
}

class InputLimits : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("ringlab-input-limits-" + std::to_string(getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  // A file of `bytes` bytes that holds no blocks on disk.
  fs::path sparse_file(const std::string& name, std::uintmax_t bytes) const {
    const fs::path path = folder_ / name;
    std::ofstream(path).put('{');
    fs::resize_file(path, bytes);
    return path;
  }
  fs::path folder_;
};

TEST_F(InputLimits, ScheduleWithTooManyStepsInARankIsRefusedByPath) {
  nlohmann::json document = to_json(make_schedule("ring", Collective::allreduce, 2));
  auto& steps = document["ranks"][1]["steps"].get_ref<nlohmann::json::array_t&>();
  steps.resize((std::size_t{1} << 20) + 1, nlohmann::json::array());
  EXPECT_THAT(limit_error_of([&] { schedule_from_json(document); }),
              HasSubstr("schedule JSON: ranks[1].steps: has 1048577 steps; the limit is 1048576"));
  steps.resize(std::size_t{1} << 20);  // at the limit: read (the verifier then judges it)
  EXPECT_EQ(schedule_from_json(document).programs[1].steps.size(), std::size_t{1} << 20);
}

TEST_F(InputLimits, ScheduleAndTopologyFilesOver512MiBAreRefusedUnread) {
  const std::uintmax_t bytes = (std::uintmax_t{512} << 20) + 1;
  const fs::path schedule = sparse_file("huge-schedule.json", bytes);
  EXPECT_THAT(limit_error_of([&] { read_schedule_file(schedule.string()); }),
              HasSubstr("huge-schedule.json' has 536870913 bytes; the limit is 536870912 (512 MiB)"));
  const fs::path topology = sparse_file("huge-topology.json", bytes);
  EXPECT_THAT(limit_error_of([&] { read_topology_file(topology.string()); }),
              HasSubstr("huge-topology.json' has 536870913 bytes; the limit is 536870912 (512 MiB)"));
}

TEST_F(InputLimits, PresetsOfAbsurdSizeAreRefusedBeforeBuilding) {
  EXPECT_THAT(limit_error_of([] { make_preset_topology("switch:1000000000"); }),
              HasSubstr("size '1000000000' must be an integer in [1, 1048576]"));
  EXPECT_THAT(limit_error_of([] { make_preset_topology("torus2d:100000x100000"); }),
              HasSubstr("10000000000 endpoints; the limit is 1048576"));
  EXPECT_THAT(limit_error_of([] { make_preset_topology("fully-connected:1048576"); }), HasSubstr("the limits are"));
}

TEST_F(InputLimits, SweepOfTooManySizesIsRefusedBeforeListingThem) {
  bench::BenchOptions options;
  options.min_bytes = 0;
  options.max_bytes = std::int64_t{1} << 30;
  options.step_bytes = 1;
  EXPECT_THAT(limit_error_of([&] { bench::sweep_sizes(options, nullptr); }),
              HasSubstr("-b 0 -e 1073741824 -i 1 gives 1073741825 sizes; the limit is 10000: raise -i/--stepbytes"));
  options.type = DataType::int32;
  options.max_bytes = (bench::max_sweep_sizes - 1) * 4;
  options.step_bytes = 4;
  EXPECT_EQ(bench::sweep_sizes(options, nullptr).size(), static_cast<std::size_t>(bench::max_sweep_sizes));
}

TEST_F(InputLimits, StepSweepUpToTheLargestSizeDoesNotOverflow) {
  bench::BenchOptions options;
  options.type = DataType::int32;
  options.min_bytes = 0;
  options.max_bytes = std::numeric_limits<std::int64_t>::max();
  options.step_bytes = std::numeric_limits<std::int64_t>::max() / 2;
  const auto sizes = bench::sweep_sizes(options, nullptr);
  ASSERT_EQ(sizes.size(), 3u);  // 0, max/2 and max - 1, rounded down to multiples of 4
  EXPECT_EQ(sizes.back().bytes % 4, 0);
  EXPECT_GT(sizes.back().bytes, sizes[1].bytes);
}

// Found by fuzz_bench_options in CI (2026-12-04): `-b 64M -f 1` (and -e 64M, its default) passed
// the factor check, which only refuses a factor below 2 when the sweep has more than one size,
// and then multiplied 64M by 1 for ever. Every factor below 2 now gives the one size.
TEST_F(InputLimits, OneSizeSweepWithAFactorBelowTwoEnds) {
  for (std::int64_t factor : {1, 0, -3}) {
    bench::BenchOptions options;
    options.min_bytes = 64 << 20;
    options.max_bytes = 64 << 20;
    options.step_factor = factor;
    const auto sizes = bench::sweep_sizes(options, nullptr);
    ASSERT_EQ(sizes.size(), 1u) << "-f " << factor;
    EXPECT_EQ(sizes.front().bytes, 64 << 20) << "-f " << factor;
  }
}

#ifdef RINGLAB_HAVE_TRAINING
// A 32-byte header: "RLMI", then version, records, height, width, channels, classes, label bytes.
void write_mini_header(const fs::path& path, std::uint32_t records, std::uint32_t height, std::uint32_t width) {
  std::ofstream out(path, std::ios::binary);
  out.write("RLMI", 4);
  for (std::uint32_t field : {std::uint32_t{1}, records, height, width, std::uint32_t{3}, std::uint32_t{100},
                              std::uint32_t{2}})
    for (int shift = 0; shift < 32; shift += 8) out.put(static_cast<char>((field >> shift) & 0xffU));
}

TEST_F(InputLimits, MiniImagenetHeaderOfAbsurdSizeIsRefusedBeforeAnyRecord) {
  const fs::path file = folder_ / training::mini_imagenet_file_name(0);
  const training::ImageGeometry model;
  write_mini_header(file, 1, 65536, 65536);
  const std::vector<fs::path> files = {file};
  EXPECT_THAT(limit_error_of([&] { training::count_mini_imagenet_records(files, model); }),
              HasSubstr("holds 65536x65536x3 images of 100 classes, but the model takes 84x84x3"));
  write_mini_header(file, 0xffffffffU, 84, 84);
  EXPECT_THAT(limit_error_of([&] { training::read_mini_imagenet_records(files, model, std::vector<std::uint64_t>{0}); }),
              HasSubstr("has 32 bytes but its header declares 4294967295 records of 21170 bytes"));
}
#endif

}  // namespace
}  // namespace ringlab
