// ringlab_device_bench: the device reduce kernels against a device-to-device cudaMemcpy in the
// same run, as bytes moved per second, each against a goal (default >= 0.85x the copy's).
// 1. allocate three buffers of --bytes on the GPU (a, b, out);
// 2. time --repetitions runs of each with CUDA events on one stream, after one untimed run:
//    cudaMemcpyAsync(out, a) moves 2 x bytes (read + write); then for each TYPE:OP of --kernels
//    (default float32:sum, float16:sum, float16:min, bfloat16:sum, bfloat16:min), with a and b
//    filled anew (bytes 0x3c and 0x3b: normal numbers in every float type, so no NaN and no
//    subnormal slows a kernel), out = a (op) b (reduce_on_device) and a = a (op) b (in place),
//    each 3 x bytes (two reads, one write);
// 3. print the best run of each in GB/s (1e9 B/s), the ratios to the copy and whether each meets
//    --goal, with a closing line that counts them; --json writes the same (device_bench_host.hpp
//    computes and formats all of it).
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "collectives/cuda/cuda_check.hpp"
#include "bench/gpu/device_bench_host.hpp"
#include "collectives/cuda/device_info.hpp"
#include "collectives/cuda/device_memory.hpp"
#include "collectives/cuda/device_reduce.hpp"
#include "io/output_file.hpp"

namespace {

using ringlab::cuda::check_cuda;
using ringlab::cuda::DeviceContext;

// Best (shortest) of `repetitions` timed runs of `body` on `stream`, in seconds, after one warm-up.
double best_seconds(cudaStream_t stream, int repetitions, const std::function<cudaError_t()>& body) {
  const DeviceContext here{-1, 0};
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  check_cuda(cudaEventCreate(&start), here, "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), here, "cudaEventCreate");
  check_cuda(body(), here, "warm-up");
  double best = 1e30;
  for (int i = 0; i < repetitions; ++i) {
    check_cuda(cudaEventRecord(start, stream), here, "cudaEventRecord");
    check_cuda(body(), here, "timed run");
    check_cuda(cudaEventRecord(stop, stream), here, "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), here, "cudaEventSynchronize");
    float milliseconds = 0;
    check_cuda(cudaEventElapsedTime(&milliseconds, start, stop), here, "cudaEventElapsedTime");
    best = std::min(best, static_cast<double>(milliseconds) * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  namespace bench = ringlab::device_bench;
  CLI::App app{"Device reduce kernels vs device-to-device cudaMemcpy, bytes moved per second, against a goal"};
  bench::Options options;
  bench::add_options(app, options);
  CLI11_PARSE(app, argc, argv);
  try {
    const std::vector<bench::Kernel> kernels = bench::parse_kernels(options.kernels);
    bench::check_options(options, kernels);
    if (!options.json_path.empty()) ringlab::io::check_output_path(options.json_path, options.force, "--json");
    const ringlab::io::StandardOutputForData data_output(ringlab::io::is_standard_output(options.json_path));
    if (ringlab::cuda::visible_device_count() == 0) {
      fmt::print(stderr, "ringlab_device_bench: no CUDA device\n");
      return 2;
    }
    const std::size_t bytes = options.bytes;
    const DeviceContext here{-1, 0};
    ringlab::cuda::Stream stream(here);
    ringlab::cuda::DeviceBuffer a(bytes, here), b(bytes, here), out(bytes, here);
    const auto fill = [&] {
      check_cuda(cudaMemset(a.bytes().data(), 0x3c, bytes), here, "cudaMemset");
      check_cuda(cudaMemset(b.bytes().data(), 0x3b, bytes), here, "cudaMemset");
    };
    fill();
    const double copy = best_seconds(stream.get(), options.repetitions, [&] {
      return cudaMemcpyAsync(out.bytes().data(), a.bytes().data(), bytes, cudaMemcpyDeviceToDevice, stream.get());
    });
    std::vector<std::pair<bench::Kernel, double>> timed;
    for (const bench::Kernel& kernel : kernels) {
      fill();  // an earlier in-place run changed a
      std::byte* destination = kernel.in_place ? a.bytes().data() : out.bytes().data();
      const std::size_t count = bytes / ringlab::element_size(kernel.type);
      timed.emplace_back(kernel, best_seconds(stream.get(), options.repetitions, [&] {
                           return ringlab::cuda::reduce_on_device(destination, a.bytes().data(), b.bytes().data(),
                                                                  count, kernel.type, kernel.op, stream.get());
                         }));
    }
    const bench::Result result = bench::summarize(bytes, options.repetitions, options.goal, copy, timed);
    const ringlab::cuda::GpuDescription gpus = ringlab::cuda::describe_gpus();
    const std::string gpu = gpus.gpus.empty() ? "" : gpus.gpus[0];
    fmt::print("{}", bench::format_text(result, gpu, gpus.cuda_version));
    if (!options.json_path.empty())
      ringlab::io::write_json_file(options.json_path, bench::to_json(result, gpu, gpus.cuda_version), 2,
                                   data_output.descriptor());
    return 0;
  } catch (const std::exception& error) {
    fmt::print(stderr, "ringlab_device_bench: error: {}\n", error.what());
    return 1;
  }
}
