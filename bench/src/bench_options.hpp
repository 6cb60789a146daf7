// Options of `ringlab bench`, spelled as nccl-tests spells them where the meaning is the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "bench/src/converge_rule.hpp"
#include "collectives/datatype.hpp"
#include "collectives/fault_injection.hpp"
#include "collectives/selection_table.hpp"

namespace ringlab::bench {

enum class Average { rank0 = 0, mean = 1, min = 2, max = 3 };

struct BenchOptions {
  std::int64_t min_bytes = 8;                  // -b
  std::int64_t max_bytes = 64 << 20;           // -e
  std::int64_t step_factor = 2;                // -f (used unless -i is given)
  std::int64_t step_bytes = 0;                 // -i (0 = use the factor)
  int iterations = 20;                         // -n
  int small_iterations = 0;                    // --iters-small: timed calls for sizes <= small_max_bytes (0: -n)
  std::int64_t small_max_bytes = 4096;         // --small-maxbytes
  int warmup_iterations = 5;                   // -w
  bool check = true;                           // -c
  DataType type = DataType::float32;           // -d
  ReduceOp op = ReduceOp::sum;                 // -o
  Average average = Average::max;              // -a
  std::vector<std::string> algorithms;         // --algo ("auto": chosen per size from `tuning`)
  std::optional<SelectionTable> tuning;        // --tuning FILE (ringlab tune)
  std::string baseline = "mpi-native";         // the reference in speed-up plots and ratios
  std::size_t segment_bytes = std::size_t{1} << 20;
  bool register_buffers = false;               // -R 1: buffers from the backend (collective_buffer)
  bool device_buffers = false;                 // device backends: buffers in GPU memory (allocate_buffer)
  AlgorithmOptions algorithm_options;          // --root, --shards
  double timeout_seconds = 300;
  std::optional<FaultSpec> fault;              // test only: RINGLAB_FAULT (docs/reliability.md)
  bool iteration_stats = true;
  std::optional<ConvergeRule> converge;        // --converge REL[,MAX_SECONDS]; empty: -n calls per row
  bool show_ci = false;                        // --ci: the median's 95 % interval in the table
  bool quiet = false;
};

// The message sizes of a sweep: min, then *factor (or +step) while <= max, each rounded down to
// a multiple of the element size. Throws std::invalid_argument on -b > -e, a factor < 2 without
// -i, more than max_sweep_sizes sizes, and the like, naming the option and how to fix it.
// The name --algo gives the algorithm a tuning table chooses per size.
inline constexpr const char* auto_algorithm = "auto";

inline constexpr std::int64_t max_sweep_sizes = 10000;  // -i that would give more is refused
struct SweepSize {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
};
std::vector<SweepSize> sweep_sizes(const BenchOptions& options, std::vector<std::string>* notes);

// Refuses, before allocating, a sweep whose buffers would not fit in available memory.
void check_memory(const BenchOptions& options, int ranks_in_this_process, std::int64_t available_bytes);

std::string_view name_of(Average average);

// Timed calls for a size: --iters-small for sizes up to --small-maxbytes when given, else -n.
// Small sizes take microseconds each, so many more calls cost little and tame scheduler noise
// (OSU's benchmarks likewise run more iterations for small messages than for large ones).
int iterations_for(const BenchOptions& options, std::int64_t bytes);

// A one-line description of everything that must agree across ranks.
std::string describe(const BenchOptions& options);

}  // namespace ringlab::bench
