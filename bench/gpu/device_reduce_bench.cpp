// ringlab_device_bench: the device reduce kernel against a device-to-device cudaMemcpy in the
// same run, as bytes moved per second (the goal: >= 0.85x the copy's).
// 1. allocate three buffers of --bytes on the GPU (a, b, out) and fill a and b;
// 2. time --repetitions runs of each with CUDA events on one stream, after one untimed run:
//    cudaMemcpyAsync(out, a) moves 2 x bytes (read + write), out = a + b (reduce_on_device)
//    moves 3 x bytes (two reads, one write), a += b (in place) also 3 x bytes;
// 3. print the best run of each in GB/s (1e9 B/s) and the ratios to the copy; --json writes them.
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_info.hpp"
#include "device_memory.hpp"
#include "device_reduce.hpp"
#include "output_file.hpp"

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
  CLI::App app{"Device reduce kernel (float32 sum) vs device-to-device cudaMemcpy, bytes moved per second"};
  std::size_t bytes = std::size_t{1} << 30;
  int repetitions = 10;
  std::string json_path;
  app.add_option("--bytes", bytes, "Buffer size in bytes (default 1 GiB)")
      ->capture_default_str();
  app.add_option("--repetitions", repetitions, "Timed runs of each; the best counts")->capture_default_str();
  bool force = false;
  app.add_option("--json", json_path, "Also write the figures to this file (- = standard output)")
      ->check(CLI::Validator([](std::string& path) { return path.empty() ? std::string("the path is empty") : std::string(); },
                             "PATH"));
  app.add_flag("--force", force, "Overwrite an existing --json file");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!json_path.empty()) ringlab::io::check_output_path(json_path, force, "--json");
    const ringlab::io::StandardOutputForData data_output(ringlab::io::is_standard_output(json_path));
    if (bytes < 16 || bytes % 4 != 0) throw std::invalid_argument("--bytes must be a multiple of 4 and at least 16");
    if (repetitions < 1) throw std::invalid_argument("--repetitions must be at least 1");
    if (ringlab::cuda::visible_device_count() == 0) {
      fmt::print(stderr, "ringlab_device_bench: no CUDA device\n");
      return 2;
    }
    const DeviceContext here{-1, 0};
    ringlab::cuda::Stream stream(here);
    ringlab::cuda::DeviceBuffer a(bytes, here), b(bytes, here), out(bytes, here);
    check_cuda(cudaMemset(a.bytes().data(), 0x3c, bytes), here, "cudaMemset");
    check_cuda(cudaMemset(b.bytes().data(), 0x3b, bytes), here, "cudaMemset");
    const std::size_t count = bytes / 4;
    const double copy = best_seconds(stream.get(), repetitions, [&] {
      return cudaMemcpyAsync(out.bytes().data(), a.bytes().data(), bytes, cudaMemcpyDeviceToDevice, stream.get());
    });
    const double reduce = best_seconds(stream.get(), repetitions, [&] {
      return ringlab::cuda::reduce_on_device(out.bytes().data(), a.bytes().data(), b.bytes().data(), count,
                                             ringlab::DataType::float32, ringlab::ReduceOp::sum, stream.get());
    });
    const double in_place = best_seconds(stream.get(), repetitions, [&] {
      return ringlab::cuda::reduce_on_device(a.bytes().data(), a.bytes().data(), b.bytes().data(), count,
                                             ringlab::DataType::float32, ringlab::ReduceOp::sum, stream.get());
    });
    const auto moved = static_cast<double>(bytes);
    const double copy_gbps = 2 * moved / copy / 1e9;
    const double reduce_gbps = 3 * moved / reduce / 1e9;
    const double in_place_gbps = 3 * moved / in_place / 1e9;
    const ringlab::cuda::GpuDescription gpus = ringlab::cuda::describe_gpus();
    fmt::print("# {} | CUDA {} | {} bytes per buffer, best of {}\n", gpus.gpus.empty() ? "?" : gpus.gpus[0],
               gpus.cuda_version, bytes, repetitions);
    fmt::print("{:<34} {:>10} {:>12} {:>8}\n", "operation", "time (us)", "moved GB/s", "vs copy");
    fmt::print("{:<34} {:>10.1f} {:>12.1f} {:>8.3f}\n", "cudaMemcpy device to device", copy * 1e6, copy_gbps, 1.0);
    fmt::print("{:<34} {:>10.1f} {:>12.1f} {:>8.3f}\n", "reduce float32 sum out = a + b", reduce * 1e6, reduce_gbps,
               reduce_gbps / copy_gbps);
    fmt::print("{:<34} {:>10.1f} {:>12.1f} {:>8.3f}\n", "reduce float32 sum a += b", in_place * 1e6, in_place_gbps,
               in_place_gbps / copy_gbps);
    if (!json_path.empty()) {
      const nlohmann::json report = {{"schema", "ringlab.device_reduce_bench/1"},
                                     {"gpu", gpus.gpus.empty() ? "" : gpus.gpus[0]},
                                     {"cuda_version", gpus.cuda_version},
                                     {"bytes", bytes},
                                     {"repetitions", repetitions},
                                     {"copy_gbps", copy_gbps},
                                     {"reduce_gbps", reduce_gbps},
                                     {"reduce_in_place_gbps", in_place_gbps},
                                     {"reduce_vs_copy", reduce_gbps / copy_gbps},
                                     {"reduce_in_place_vs_copy", in_place_gbps / copy_gbps}};
      ringlab::io::write_json_file(json_path, report, 2, data_output.descriptor());
    }
    return 0;
  } catch (const std::exception& error) {
    fmt::print(stderr, "ringlab_device_bench: error: {}\n", error.what());
    return 1;
  }
}
