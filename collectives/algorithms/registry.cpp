#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "collectives/algorithms/algorithm.hpp"

namespace ringlab {

namespace {
constexpr Collective allreduce = Collective::allreduce;
constexpr Collective reduce_scatter = Collective::reduce_scatter;
constexpr Collective allgather = Collective::allgather;
constexpr Collective broadcast = Collective::broadcast;
}  // namespace

std::span<const AlgorithmInfo> algorithms() {
  static const std::vector<AlgorithmInfo> table = {
#define RINGLAB_ALGORITHM(id, summary, ...) {#id, summary, {__VA_ARGS__}, &id},
#include "collectives/algorithms/algorithms.def"
#undef RINGLAB_ALGORITHM
  };
  return table;
}

namespace {
std::vector<std::string> names_of(std::span<const AlgorithmInfo> table) {
  std::vector<std::string> names;
  for (const AlgorithmInfo& info : table) names.emplace_back(info.name);
  return names;
}

// --node-rings: rings of one length G, each holding every local rank 0 .. G-1 once.
void check_node_rings(const std::vector<std::vector<int>>& rings) {
  for (const std::vector<int>& ring : rings) {
    std::vector<int> sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = ring.size() == rings.front().size() && !ring.empty();
    for (std::size_t i = 0; i < sorted.size(); ++i) permutation = permutation && sorted[i] == static_cast<int>(i);
    if (!permutation)
      throw std::invalid_argument(fmt::format("--node-rings: ring {} must hold each of the local ranks 0 .. {} once, "
                                              "as the first ring does",
                                              fmt::join(ring, ","), std::max<std::size_t>(rings.front().size(), 1) - 1));
  }
}
}  // namespace

std::vector<std::string> algorithm_names() { return names_of(algorithms()); }

const AlgorithmInfo& find_algorithm(std::string_view name, std::span<const AlgorithmInfo> table) {
  for (const AlgorithmInfo& info : table)
    if (info.name == name) return info;
  throw std::invalid_argument(
      fmt::format("unknown algorithm '{}'; valid algorithms: {}", name, fmt::join(names_of(table), ", ")));
}

bool supports(const AlgorithmInfo& algorithm, Collective collective) {
  return std::find(algorithm.collectives.begin(), algorithm.collectives.end(), collective) !=
         algorithm.collectives.end();
}

Schedule make_schedule(std::string_view algorithm, Collective collective, int nranks,
                       const AlgorithmOptions& options) {
  return make_schedule(find_algorithm(algorithm), collective, nranks, options);
}

Schedule make_schedule(const AlgorithmInfo& info, Collective collective, int nranks,
                       const AlgorithmOptions& options) {
  if (nranks < 1)
    throw std::invalid_argument(fmt::format("number of ranks must be at least 1 (got {})", nranks));
  if (options.root < 0 || options.root >= nranks)
    throw std::invalid_argument(
        fmt::format("root {} is outside the {} ranks; pick --root in [0, {}]", options.root, nranks, nranks - 1));
  if (options.shards < 1 || options.shards > nranks)
    throw std::invalid_argument(
        fmt::format("--shards {} must be between 1 and the number of ranks ({})", options.shards, nranks));
  if (options.group_size < 0)
    throw std::invalid_argument(
        fmt::format("--group-size {} must be at least 1 (ranks per group), or 0 to take it from the topology", options.group_size));
  if (options.channels < 0 || options.channels > max_channels)
    throw std::invalid_argument(fmt::format("--channels {} must be between 1 and {}, or 0 for the default ({})",
                                            options.channels, max_channels, nccl_channels_default));
  if (options.pipeline < 0 || options.pipeline > max_pipeline)
    throw std::invalid_argument(
        fmt::format("--pipeline {} must be between 1 and {}, or 0 for the algorithm's default", options.pipeline, max_pipeline));
  check_node_rings(options.node_rings);
  if (!supports(info, collective)) {
    std::vector<std::string_view> names;
    for (Collective supported : info.collectives) names.push_back(name_of(supported));
    throw std::invalid_argument(fmt::format("algorithm '{}' has no {} schedule; it supports: {}", info.name,
                                            name_of(collective), fmt::join(names, ", ")));
  }
  Schedule schedule = info.make(collective, nranks, options);
  schedule.algorithm = std::string(info.name);
  return schedule;
}

int floor_log2(int value) {
  int log = 0;
  while ((2 << log) <= value) ++log;
  return log;
}

int ceil_log2(int value) {
  int log = 0;
  while ((1 << log) < value) ++log;
  return log;
}

Schedule make_explicit(std::string_view algorithm, Collective collective, int nranks, std::int64_t nchunks) {
  Schedule schedule;
  schedule.algorithm = std::string(algorithm);
  schedule.collective = collective;
  schedule.nranks = nranks;
  schedule.nchunks = nchunks;
  schedule.programs.resize(static_cast<std::size_t>(nranks));
  return schedule;
}

void add_op(Schedule& schedule, int rank, int step, Op op) {
  auto& steps = schedule.programs.at(static_cast<std::size_t>(rank)).steps;
  if (steps.size() <= static_cast<std::size_t>(step)) steps.resize(static_cast<std::size_t>(step) + 1);
  steps[static_cast<std::size_t>(step)].push_back(op);
}

PowerOfTwoFold PowerOfTwoFold::of(int nranks) {
  const int active = 1 << floor_log2(nranks);
  return {active, nranks - active};
}

int PowerOfTwoFold::virtual_rank(int rank) const {
  if (rank < 2 * remainder) return rank % 2 == 1 ? rank / 2 : -1;
  return rank - remainder;
}

int PowerOfTwoFold::real_rank(int virtual_id) const {
  return virtual_id < remainder ? 2 * virtual_id + 1 : virtual_id + remainder;
}

void PowerOfTwoFold::add_fold(Schedule& schedule, int step, ChunkRange everything) const {
  for (int rank = 0; rank < 2 * remainder; rank += 2) {
    add_op(schedule, rank, step, {OpKind::send, rank + 1, everything});
    add_op(schedule, rank + 1, step, {OpKind::recv_reduce, rank, everything});
  }
}

Schedule whole_buffer_butterfly(std::string_view algorithm, int nranks, ButterflyPartner partner) {
  const PowerOfTwoFold fold = PowerOfTwoFold::of(nranks);
  Schedule schedule = make_explicit(algorithm, Collective::allreduce, nranks, 1);
  if (nranks == 1) return schedule;
  const ChunkRange everything{0, 1};
  const int first_step = fold.remainder > 0 ? 1 : 0;
  const int levels = floor_log2(fold.active);
  if (fold.remainder > 0) fold.add_fold(schedule, 0, everything);
  for (int rank = 0; rank < nranks; ++rank) {
    const int self = fold.virtual_rank(rank);
    if (self < 0) continue;
    for (int level = 0; level < levels; ++level) {
      const int other = fold.real_rank(partner(self, level, fold.active));
      add_op(schedule, rank, first_step + level, {OpKind::send, other, everything});
      add_op(schedule, rank, first_step + level, {OpKind::recv_reduce, other, everything});
    }
  }
  if (fold.remainder > 0) fold.add_unfold(schedule, first_step + levels, everything);
  return schedule;
}

namespace {
// Throws unless every pair of levels splits its range of blocks in two halves (halving_butterfly).
void check_halving(std::string_view algorithm, const std::vector<int>& owners, ButterflyPartner partner) {
  const int power = static_cast<int>(owners.size());
  const int levels = floor_log2(power);
  for (int self = 0; self < power; ++self)
    for (int level = 0; level < levels; ++level) {
      const int mine = owners[static_cast<std::size_t>(self)];
      const int theirs = owners[static_cast<std::size_t>(partner(self, level, power))];
      if ((mine ^ theirs) >> (levels - level - 1) != 1)
        throw std::logic_error(fmt::format("{}: at level {} of {} ranks, rank {} (block {}) and its partner (block {}) "
                                           "do not split one range of blocks", algorithm, level, power, self, mine, theirs));
    }
}
}  // namespace

Schedule halving_butterfly(std::string_view algorithm, int nranks, ButterflyPartner partner, BlockOwners owners) {
  const PowerOfTwoFold fold = PowerOfTwoFold::of(nranks);
  Schedule schedule = make_explicit(algorithm, Collective::allreduce, nranks, fold.active);
  if (nranks == 1) return schedule;
  const std::vector<int> owner = owners(fold.active);
  check_halving(algorithm, owner, partner);
  const int levels = floor_log2(fold.active);
  const int first_step = fold.remainder > 0 ? 1 : 0;
  if (fold.remainder > 0) fold.add_fold(schedule, 0, ChunkRange{0, fold.active});
  // The blocks that share the top `level` bits of v's block.
  auto blocks = [&](int self, int level) {
    const int width = levels - level;
    const std::int64_t first = std::int64_t{owner[static_cast<std::size_t>(self)] >> width} << width;
    return ChunkRange{first, first + (std::int64_t{1} << width)};
  };
  for (int rank = 0; rank < nranks; ++rank) {
    const int self = fold.virtual_rank(rank);
    if (self < 0) continue;
    for (int level = 0; level < levels; ++level) {
      const int peer = partner(self, level, fold.active);
      add_op(schedule, rank, first_step + level, {OpKind::send, fold.real_rank(peer), blocks(peer, level + 1)});
      add_op(schedule, rank, first_step + level, {OpKind::recv_reduce, fold.real_rank(peer), blocks(self, level + 1)});
    }
    for (int level = levels - 1, step = first_step + levels; level >= 0; --level, ++step) {
      const int peer = partner(self, level, fold.active);
      add_op(schedule, rank, step, {OpKind::send, fold.real_rank(peer), blocks(self, level + 1)});
      add_op(schedule, rank, step, {OpKind::recv, fold.real_rank(peer), blocks(peer, level + 1)});
    }
  }
  if (fold.remainder > 0) fold.add_unfold(schedule, first_step + 2 * levels, ChunkRange{0, fold.active});
  return schedule;
}

Schedule nested_intervals(std::string_view algorithm, Collective collective, int nranks, const std::vector<int>& sizes) {
  RankProgram relative;
  if (collective == Collective::allreduce || collective == Collective::reduce_scatter)
    for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
      const int interval = sizes[k + 1];
      relative.steps.push_back({Op{OpKind::send, interval, {interval, sizes[k]}},
                                Op{OpKind::recv_reduce, nranks - interval, {0, sizes[k] - interval}}});
    }
  if (collective == Collective::allreduce || collective == Collective::allgather)
    for (std::size_t k = sizes.size() - 1; k-- > 0;) {
      const int interval = sizes[k + 1];
      relative.steps.push_back({Op{OpKind::send, nranks - interval, {0, sizes[k] - interval}},
                                Op{OpKind::recv, interval, {interval, sizes[k]}}});
    }
  return make_circulant(std::string(algorithm), collective, nranks, nranks, std::move(relative));
}

void PowerOfTwoFold::add_unfold(Schedule& schedule, int step, ChunkRange everything) const {
  for (int rank = 0; rank < 2 * remainder; rank += 2) {
    add_op(schedule, rank + 1, step, {OpKind::send, rank, everything});
    add_op(schedule, rank, step, {OpKind::recv, rank + 1, everything});
  }
}

}  // namespace ringlab
