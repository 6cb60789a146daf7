// The host side of ringlab_device_bench, free of CUDA so that it is unit-tested on machines
// without a GPU (tests/test_device_bench.cpp): the options, the list of kernels to time, the
// rates and ratios to the device-to-device copy against the goal, the table and the JSON report.
// device_reduce_bench.cpp does the timing on the GPU and calls these.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/datatype.hpp"

namespace CLI {
class App;
}

namespace ringlab::device_bench {

// What a GPU check measures unless told otherwise: float32 sum (the kernel of issue 5) and the
// 16-bit types' sum and min (issue 29).
inline constexpr std::string_view default_kernels = "float32:sum,float16:sum,float16:min,bfloat16:sum,bfloat16:min";
// Each reduce kernel's goal: at least this fraction of the copy's bytes moved per second.
inline constexpr double default_goal = 0.85;

struct Options {
  std::size_t bytes = std::size_t{1} << 30;      // --bytes: each of the three buffers
  int repetitions = 10;                          // --repetitions: timed runs, the best counts
  std::string kernels{default_kernels};          // --kernels: TYPE:OP,...
  double goal = default_goal;                    // --goal
  std::string json_path;                         // --json
  bool force = false;                            // --force
};

// Declares the options above on `app` (their checks that need no other option included).
void add_options(CLI::App& app, Options& options);

// One reduce kernel to time: out = a (op) b, or a = a (op) b when in_place.
struct Kernel {
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  bool in_place = false;
  friend bool operator==(const Kernel&, const Kernel&) = default;
};

// "float16:sum,bf16:min" (ringlab's and nccl-tests' spellings, as -d and -o take them) -> each
// pair out of place, then in place, in the order given. Throws std::invalid_argument naming the
// item for an empty list, an item without ':', an unknown type or op, avg (on the device avg is
// the sum kernel, then a divide) and a pair given twice.
std::vector<Kernel> parse_kernels(std::string_view list);

// The checks that need several options: --bytes a multiple of the largest element size among
// the kernels and at least 16, --repetitions >= 1, --goal > 0 and finite. Throws
// std::invalid_argument.
void check_options(const Options& options, const std::vector<Kernel>& kernels);

// "reduce float16 min out = min(a, b)", "reduce float32 sum a += b".
std::string describe(const Kernel& kernel);

struct Row {
  Kernel kernel;
  double seconds = 0;     // best of the timed runs
  double gbps = 0;        // bytes moved per second / 1e9: 3 x bytes (two reads, one write)
  double vs_copy = 0;     // gbps / the copy's
  bool meets_goal = false;  // vs_copy >= goal
};

struct Result {
  std::size_t bytes = 0;
  int repetitions = 0;
  double goal = default_goal;
  double copy_seconds = 0;
  double copy_gbps = 0;   // 2 x bytes moved (read + write)
  std::vector<Row> rows;
  // How many rows meet the goal.
  std::size_t met() const;
};

// The rates, ratios and goal verdicts from the best times (seconds > 0).
Result summarize(std::size_t bytes, int repetitions, double goal, double copy_seconds,
                 const std::vector<std::pair<Kernel, double>>& kernel_seconds);

// The text the bench prints: a header line naming the GPU, the table, and a line that says how
// many kernels meet the goal and which do not.
std::string format_text(const Result& result, std::string_view gpu, std::string_view cuda_version);

// The --json document, schema ringlab.device_reduce_bench/1 (docs/cuda.md, "ringlab_device_bench").
nlohmann::json to_json(const Result& result, std::string_view gpu, std::string_view cuda_version);

}  // namespace ringlab::device_bench
