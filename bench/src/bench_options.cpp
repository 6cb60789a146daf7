#include "bench/src/bench_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace ringlab::bench {

std::vector<SweepSize> sweep_sizes(const BenchOptions& options, std::vector<std::string>* notes) {
  const auto element = static_cast<std::int64_t>(element_size(options.type));
  if (options.min_bytes < 0 || options.max_bytes < 0)
    throw std::invalid_argument("-b/--minbytes and -e/--maxbytes must not be negative");
  if (options.min_bytes > options.max_bytes)
    throw std::invalid_argument(fmt::format("-b/--minbytes ({}) is larger than -e/--maxbytes ({}); swap them",
                                            options.min_bytes, options.max_bytes));
  if (options.step_bytes < 0) throw std::invalid_argument("-i/--stepbytes must be positive");
  if (options.step_bytes == 0 && options.step_factor < 2 && options.min_bytes != options.max_bytes)
    throw std::invalid_argument(
        fmt::format("-f/--stepfactor {} would never reach -e; use a factor of at least 2 or -i/--stepbytes",
                    options.step_factor));
  // With -i the sweep has (max - min) / step + 1 sizes: refuse a billion-size sweep before listing it.
  if (options.step_bytes > 0 && (options.max_bytes - options.min_bytes) / options.step_bytes >= max_sweep_sizes)
    throw std::invalid_argument(fmt::format(
        "-b {} -e {} -i {} gives {} sizes; the limit is {}: raise -i/--stepbytes or narrow -b/-e", options.min_bytes,
        options.max_bytes, options.step_bytes, (options.max_bytes - options.min_bytes) / options.step_bytes + 1,
        max_sweep_sizes));
  std::vector<SweepSize> sizes;
  std::int64_t bytes = options.min_bytes;
  while (bytes <= options.max_bytes) {
    const std::int64_t rounded = bytes / element * element;
    if (rounded != bytes && notes)
      notes->push_back(fmt::format("size {} B is not a multiple of the {} size ({} B); rounded down to {} B", bytes,
                                   name_of(options.type), element, rounded));
    if (sizes.empty() || sizes.back().bytes != rounded) sizes.push_back({rounded, rounded / element});
    if (options.step_bytes > 0) {
      if (bytes > options.max_bytes - options.step_bytes) break;
      bytes += options.step_bytes;
    } else {
      // A factor below 2 passed the check above only for a one-size sweep (-b = -e): it would
      // never grow (-f 1) or would flip the sign, so stop after that size.
      if (bytes == 0 || options.step_factor < 2) break;
      if (bytes > options.max_bytes / options.step_factor) break;
      bytes *= options.step_factor;
    }
  }
  return sizes;
}

void check_memory(const BenchOptions& options, int ranks_in_this_process, std::int64_t available_bytes) {
  // Per rank: input, output and expected buffers of the largest size, plus scratch of one more.
  const double needed = 4.0 * static_cast<double>(options.max_bytes) * ranks_in_this_process;
  if (available_bytes > 0 && needed > static_cast<double>(available_bytes))
    throw std::invalid_argument(fmt::format(
        "-e/--maxbytes {} B needs about {:.2f} GiB of buffers ({} rank(s) x 4 buffers) but only {:.2f} GiB is "
        "available; lower -e",
        options.max_bytes, needed / (1 << 30), ranks_in_this_process,
        static_cast<double>(available_bytes) / (1 << 30)));
}

std::string_view name_of(Average average) {
  switch (average) {
    case Average::rank0: return "rank0";
    case Average::mean: return "mean";
    case Average::min: return "min";
    case Average::max: return "max";
  }
  return "max";
}

int iterations_for(const BenchOptions& options, std::int64_t bytes) {
  return options.small_iterations > 0 && bytes <= options.small_max_bytes ? options.small_iterations
                                                                           : options.iterations;
}

std::string describe(const BenchOptions& options) {
  return fmt::format("b={} e={} f={} i={} n={} small={}@{} w={} c={} d={} o={} a={} algo={} segment={} R={} root={} shards={} group={} inner={} converge={} {}",
                     options.min_bytes, options.max_bytes, options.step_factor, options.step_bytes, options.iterations,
                     options.small_iterations, options.small_max_bytes,
                     options.warmup_iterations, options.check, name_of(options.type), name_of(options.op),
                     name_of(options.average), fmt::join(options.algorithms, ","), options.segment_bytes,
                     options.register_buffers ? 1 : 0, options.algorithm_options.root, options.algorithm_options.shards,
                     options.algorithm_options.group_size, options.algorithm_options.inner,
                     options.converge ? describe(*options.converge) : "off",
                     options.tuning ? describe(*options.tuning) : "tuning none");
}

}  // namespace ringlab::bench
