// GPU tests skip, with the reason CTest looks for ("no CUDA device"), where no GPU is visible.
#pragma once

#include <gtest/gtest.h>

#include "collectives/cuda/device_memory.hpp"

#define RINGLAB_SKIP_WITHOUT_GPU()                                             \
  do {                                                                         \
    if (::ringlab::cuda::visible_device_count() == 0) GTEST_SKIP() << "no CUDA device"; \
  } while (false)
