// CPU-side CUDA logic that runs without a GPU: error messages and the GPU description.
#include <gtest/gtest.h>

#include "collectives/cuda/cuda_check.hpp"
#include "collectives/cuda/device_info.hpp"
#include "collectives/cuda/device_memory.hpp"

namespace ringlab::cuda {
namespace {

TEST(CudaErrors, MessageNamesRankDeviceCallAndTheRuntimeText) {
  try {
    check_cuda(cudaErrorMemoryAllocation, {3, 1}, "cudaMalloc(64 bytes)");
    ADD_FAILURE() << "no exception";
  } catch (const CudaError& error) {
    EXPECT_STREQ(error.what(),
                 "rank 3, device 1: cudaMalloc(64 bytes) failed: out of memory (cudaErrorMemoryAllocation)");
  }
  EXPECT_NO_THROW(check_cuda(cudaSuccess, {0, 0}, "cudaFree"));
  EXPECT_EQ(device_error_message({-1, 2}, "cudaGetDeviceProperties", "invalid device ordinal"),
            "device 2: cudaGetDeviceProperties failed: invalid device ordinal");
}

TEST(CudaErrors, GpuDescriptionNeverThrowsAndNamesTheRuntime) {
  GpuDescription description;
  ASSERT_NO_THROW(description = describe_gpus());
  EXPECT_EQ(description.cuda_version.rfind("runtime ", 0), 0U) << description.cuda_version;
  EXPECT_EQ(static_cast<int>(description.gpus.size()), visible_device_count());
#ifdef RINGLAB_TEST_EXPECT_NCCL
  ASSERT_TRUE(description.nccl_version.has_value());
  EXPECT_NE(description.nccl_version->find('.'), std::string::npos);
#endif
}

}  // namespace
}  // namespace ringlab::cuda
