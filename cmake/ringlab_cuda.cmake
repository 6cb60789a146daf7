# Included by the top-level CMakeLists.txt when RINGLAB_ENABLE_CUDA is ON: enables the CUDA
# language for sm_80 and sm_90 (plus sm_90 PTX for newer GPUs), finds the CUDA toolkit and the
# GPU libraries, and says clearly what is missing and how to point CMake at it.
#   RINGLAB_NCCL_ROOT   a folder with include/nccl.h and lib/libnccl.so* (e.g. the nvidia.nccl
#                       pip wheel: python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))')
#   RINGLAB_CUDNN_ROOT  the same for cudnn.h and libcudnn.so*
# Results: RINGLAB_HAVE_NCCL, RINGLAB_NCCL_INCLUDE_DIR, RINGLAB_NCCL_LIBRARY, RINGLAB_HAVE_CUDNN,
# RINGLAB_HAVE_CUBLAS.
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR "ringlab: RINGLAB_ENABLE_CUDA=ON but no CUDA compiler was found. Install the CUDA toolkit, "
                      "pass -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc, or configure with -DRINGLAB_ENABLE_CUDA=OFF.")
endif()
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "80-real;90")  # A100 and H100/H200 machine code, sm_90 PTX for later GPUs
endif()
enable_language(CUDA)
# CMake 3.25 does not know nvcc 13's C++20 flag ("requires the language dialect CUDA20"), so it
# is named here.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)
find_package(CUDAToolkit REQUIRED)
message(STATUS "ringlab: CUDA ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}, architectures ${CMAKE_CUDA_ARCHITECTURES}")

set(RINGLAB_NCCL_ROOT "$ENV{RINGLAB_NCCL_ROOT}" CACHE PATH "Folder with include/nccl.h and lib/libnccl.so*")
set(RINGLAB_CUDNN_ROOT "$ENV{RINGLAB_CUDNN_ROOT}" CACHE PATH "Folder with include/cudnn.h and lib/libcudnn.so*")
set(ringlab_gpu_library_hints ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib ${CUDAToolkit_LIBRARY_ROOT}/lib64)

# ringlab_find_gpu_library(PREFIX HEADER LIBRARY SONAME ROOT): sets RINGLAB_<PREFIX>_INCLUDE_DIR,
# RINGLAB_<PREFIX>_LIBRARY and RINGLAB_HAVE_<PREFIX>, looking in ROOT first, then the toolkit.
function(ringlab_find_gpu_library prefix header library soname root)
  find_path(RINGLAB_${prefix}_INCLUDE_DIR ${header} HINTS ${root}/include ${CUDAToolkit_INCLUDE_DIRS})
  find_library(RINGLAB_${prefix}_LIBRARY NAMES ${library} ${soname} HINTS ${root}/lib ${ringlab_gpu_library_hints})
  if(RINGLAB_${prefix}_INCLUDE_DIR AND RINGLAB_${prefix}_LIBRARY)
    set(RINGLAB_HAVE_${prefix} ON PARENT_SCOPE)
  else()
    set(RINGLAB_HAVE_${prefix} OFF PARENT_SCOPE)
  endif()
endfunction()

ringlab_find_gpu_library(NCCL nccl.h nccl libnccl.so.2 "${RINGLAB_NCCL_ROOT}")
if(RINGLAB_HAVE_NCCL)
  message(STATUS "ringlab: NCCL ${RINGLAB_NCCL_LIBRARY} (headers in ${RINGLAB_NCCL_INCLUDE_DIR})")
else()
  message(WARNING "ringlab: NCCL not found (nccl.h: ${RINGLAB_NCCL_INCLUDE_DIR}, libnccl: ${RINGLAB_NCCL_LIBRARY}); "
                  "the nccl backend is not built and reports name no NCCL version. Pass "
                  "-DRINGLAB_NCCL_ROOT=<folder with include/ and lib/>.")
endif()

ringlab_find_gpu_library(CUDNN cudnn.h cudnn libcudnn.so.9 "${RINGLAB_CUDNN_ROOT}")
if(RINGLAB_HAVE_CUDNN)
  message(STATUS "ringlab: cuDNN ${RINGLAB_CUDNN_LIBRARY} (the training harness GPU compute)")
else()
  message(STATUS "ringlab: cuDNN not found (no target needs it yet); pass -DRINGLAB_CUDNN_ROOT=<folder> for the "
                 "training harness")
endif()

if(TARGET CUDA::cublas)
  set(RINGLAB_HAVE_CUBLAS ON)
  message(STATUS "ringlab: cuBLAS found in the CUDA toolkit (the training harness GPU compute)")
else()
  set(RINGLAB_HAVE_CUBLAS OFF)
  message(STATUS "ringlab: cuBLAS not found in the CUDA toolkit (no target needs it yet)")
endif()
