// The cuda-peer backend's rank-to-GPU layout, without a GPU: assign_devices is pure.
#include "collectives/backends/device_assignment.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace ringlab {
namespace {

std::string layout_error_of(const DeviceLayout& layout, int visible) {
  try {
    assign_devices(layout, visible);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "no error";
}

TEST(DeviceAssignment, OneRankPerGpuByDefault) {
  EXPECT_EQ(assign_devices({4, 0, 0}, 8), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(assign_devices({1, 0, 0}, 1), (std::vector<int>{0}));
}

TEST(DeviceAssignment, VirtualRanksShareConsecutively) {
  EXPECT_EQ(assign_devices({8, 8, 0}, 1), (std::vector<int>(8, 0)));
  EXPECT_EQ(assign_devices({8, 4, 0}, 2), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(assign_devices({5, 2, 0}, 4), (std::vector<int>{0, 0, 1, 1, 2}));  // the last GPU gets fewer
}

TEST(DeviceAssignment, NgpusLimitsTheDevicesUsed) {
  EXPECT_EQ(assign_devices({4, 2, 2}, 8), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_NE(layout_error_of({4, 0, 2}, 8).find("--ranks 4 needs 4 GPUs at one rank per GPU, but 2 are usable; pass "
                                        "--ranks-per-gpu 2"),
            std::string::npos)
      << layout_error_of({4, 0, 2}, 8);
}

TEST(DeviceAssignment, MoreRanksThanGpusWithoutRanksPerGpuSaysWhatToPass) {
  EXPECT_EQ(layout_error_of({8, 0, 0}, 1),
            "--ranks 8 needs 8 GPUs at one rank per GPU, but 1 is usable; pass --ranks-per-gpu 8 to run several "
            "virtual ranks on each GPU");
  EXPECT_EQ(layout_error_of({8, 2, 0}, 2), "--ranks 8 at --ranks-per-gpu 2 needs 4 GPUs, but 2 are usable; raise "
                                    "--ranks-per-gpu to 4");
}

TEST(DeviceAssignment, NoDeviceAndBadNumbersAreRefused) {
  EXPECT_NE(layout_error_of({2, 0, 0}, 0).find("no CUDA device is visible"), std::string::npos);
  EXPECT_EQ(layout_error_of({2, 0, 3}, 2), "-g/--ngpus 3 asks for more GPUs than the 2 visible");
  EXPECT_NE(layout_error_of({0, 0, 0}, 1).find("--ranks must be at least 1 (got 0)"), std::string::npos);
  EXPECT_NE(layout_error_of({2, -1, 0}, 1).find("--ranks-per-gpu must be at least 1"), std::string::npos);
  EXPECT_NE(layout_error_of({2, 0, -2}, 1).find("-g/--ngpus must be at least 1"), std::string::npos);
}

}  // namespace
}  // namespace ringlab
