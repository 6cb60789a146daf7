// find_equivalence: blocks, invariants, then a propagating search for the rank and block maps
// (collectives/schedule_equivalence.hpp).
#include "collectives/schedule_equivalence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace ringlab {

namespace {

// A schedule's op with its chunk range read as blocks.
struct BlockedOp {
  OpKind kind = OpKind::send;
  int peer = 0;
  int order = 0;              // among the step's ops of this kind and peer
  std::int64_t weight = 0;    // chunks covered
  std::vector<int> blocks;    // ascending
};

struct BlockedSchedule {
  int nranks = 1;
  std::int64_t nchunks = 1;
  int steps = 0;
  std::vector<std::vector<std::int64_t>> block_chunks;        // per block, ascending chunks
  std::vector<std::vector<std::vector<BlockedOp>>> ops;       // [rank][step]
  std::vector<std::uint64_t> rank_signature;                  // per rank: hash of its ops' kinds and fractions
};

// A fraction of the buffer, reduced.
using Fraction = std::pair<std::int64_t, std::int64_t>;
Fraction fraction_of(std::int64_t chunks, std::int64_t nchunks) {
  const std::int64_t divisor = std::max<std::int64_t>(1, std::gcd(chunks, nchunks));
  return {chunks / divisor, nchunks / divisor};
}

template <class Visit>
void for_each_chunk(ChunkRange range, std::int64_t nchunks, Visit visit) {
  for (std::int64_t chunk = range.begin; chunk < range.end; ++chunk) visit(chunk % nchunks);
}

// One step of one rank as kinds and fractions, sorted: what a relabelling cannot change.
using StepSignature = std::vector<std::tuple<int, std::int64_t, std::int64_t>>;
StepSignature step_signature(const std::vector<BlockedOp>& ops, std::int64_t nchunks) {
  StepSignature signature;
  for (const BlockedOp& op : ops) {
    const Fraction part = fraction_of(op.weight, nchunks);
    signature.emplace_back(static_cast<int>(op.kind), part.first, part.second);
  }
  std::sort(signature.begin(), signature.end());
  return signature;
}

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
  hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  return hash;
}

BlockedSchedule block_schedule(const Schedule& schedule) {
  BlockedSchedule out;
  out.nranks = schedule.nranks;
  out.nchunks = schedule.nchunks;
  std::vector<RankProgram> programs;
  programs.reserve(static_cast<std::size_t>(schedule.nranks));
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    programs.push_back(schedule.program(rank));
    out.steps = std::max(out.steps, static_cast<int>(programs.back().steps.size()));
  }
  // Refine one block into the regions of every op's range: the chunks of a range leave their
  // block for a new one, shared by the range's chunks that came from the same block.
  std::vector<int> block_of(static_cast<std::size_t>(schedule.nchunks), 0);
  int next_block = 1;
  std::unordered_map<int, int> moved_to;
  for (const RankProgram& program : programs)
    for (const Step& step : program.steps)
      for (const Op& op : step) {
        moved_to.clear();
        for_each_chunk(op.chunks, schedule.nchunks, [&](std::int64_t chunk) {
          int& block = block_of[static_cast<std::size_t>(chunk)];
          const auto [entry, added] = moved_to.try_emplace(block, next_block);
          if (added) ++next_block;
          block = entry->second;
        });
      }
  // Number the blocks densely in the order of their first chunk.
  std::unordered_map<int, int> dense;
  for (std::int64_t chunk = 0; chunk < schedule.nchunks; ++chunk) {
    int& block = block_of[static_cast<std::size_t>(chunk)];
    const auto [entry, added] = dense.try_emplace(block, static_cast<int>(dense.size()));
    if (added) out.block_chunks.emplace_back();
    block = entry->second;
    out.block_chunks[static_cast<std::size_t>(block)].push_back(chunk);
  }
  out.ops.resize(static_cast<std::size_t>(schedule.nranks));
  out.rank_signature.assign(static_cast<std::size_t>(schedule.nranks), 0);
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    auto& steps = out.ops[static_cast<std::size_t>(rank)];
    steps.resize(static_cast<std::size_t>(out.steps));
    const auto& program = programs[static_cast<std::size_t>(rank)];
    std::uint64_t hash = 0;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      if (k < program.steps.size())
        for (const Op& op : program.steps[k]) {
          BlockedOp blocked{op.kind, op.peer, 0, op.chunks.size(), {}};
          for (const BlockedOp& earlier : steps[k])
            if (earlier.kind == op.kind && earlier.peer == op.peer) ++blocked.order;
          for_each_chunk(op.chunks, schedule.nchunks, [&](std::int64_t chunk) {
            blocked.blocks.push_back(block_of[static_cast<std::size_t>(chunk)]);
          });
          std::sort(blocked.blocks.begin(), blocked.blocks.end());
          blocked.blocks.erase(std::unique(blocked.blocks.begin(), blocked.blocks.end()), blocked.blocks.end());
          steps[k].push_back(std::move(blocked));
        }
      hash = mix(hash, k);
      for (const auto& [kind, numerator, denominator] : step_signature(steps[k], out.nchunks))
        hash = mix(mix(mix(hash, static_cast<std::uint64_t>(kind)), static_cast<std::uint64_t>(numerator)),
                   static_cast<std::uint64_t>(denominator));
    }
    out.rank_signature[static_cast<std::size_t>(rank)] = hash;
  }
  return out;
}

std::string describe(const StepSignature& signature) {
  if (signature.empty()) return "no ops";
  std::string text;
  for (const auto& [kind, numerator, denominator] : signature)
    text += fmt::format("{}{} {}/{}", text.empty() ? "" : ", ", name_of(static_cast<OpKind>(kind)), numerator,
                        denominator);
  return text;
}

// The first invariant A and B do not share, in words; empty when they share all.
std::string first_invariant_difference(const BlockedSchedule& a, const BlockedSchedule& b) {
  if (a.steps != b.steps) return fmt::format("A has {} steps, B has {}", a.steps, b.steps);
  for (int k = 0; k < a.steps; ++k) {
    std::map<StepSignature, std::pair<int, int>> ranks_with;  // signature -> (ranks of A, ranks of B)
    for (int rank = 0; rank < a.nranks; ++rank) {
      ++ranks_with[step_signature(a.ops[static_cast<std::size_t>(rank)][static_cast<std::size_t>(k)], a.nchunks)].first;
      ++ranks_with[step_signature(b.ops[static_cast<std::size_t>(rank)][static_cast<std::size_t>(k)], b.nchunks)].second;
    }
    for (const auto& [signature, counts] : ranks_with)
      if (counts.first != counts.second)
        return fmt::format("step {}: {} ranks of A and {} of B do [{}] (fractions of the buffer)", k, counts.first,
                           counts.second, describe(signature));
  }
  std::map<Fraction, std::pair<int, int>> blocks_of_size;
  for (const auto& chunks : a.block_chunks)
    ++blocks_of_size[fraction_of(static_cast<std::int64_t>(chunks.size()), a.nchunks)].first;
  for (const auto& chunks : b.block_chunks)
    ++blocks_of_size[fraction_of(static_cast<std::int64_t>(chunks.size()), b.nchunks)].second;
  for (const auto& [size, counts] : blocks_of_size)
    if (counts.first != counts.second)
      return fmt::format("the ops cut A's buffer into {} blocks of {}/{} and B's into {}", counts.first, size.first,
                         size.second, counts.second);
  return {};
}

using Bits = std::vector<std::uint64_t>;

struct SearchState {
  std::vector<int> a_to_b;
  std::vector<int> b_to_a;
  std::vector<char> done;          // A rank whose ops have all been matched
  std::vector<int> queue;          // A ranks newly mapped
  std::vector<Bits> candidates;    // per block of A: the blocks of B it may map to
};

struct SearchLimitReached {};

class Search {
 public:
  Search(const BlockedSchedule& a, const BlockedSchedule& b, std::int64_t branch_limit)
      : a_(a), b_(b), branch_limit_(branch_limit), words_((b.block_chunks.size() + 63) / 64) {}

  std::optional<SearchState> run() {
    SearchState start;
    start.a_to_b.assign(static_cast<std::size_t>(a_.nranks), -1);
    start.b_to_a.assign(static_cast<std::size_t>(b_.nranks), -1);
    start.done.assign(static_cast<std::size_t>(a_.nranks), 0);
    start.candidates.assign(a_.block_chunks.size(), Bits(words_, 0));
    for (std::size_t x = 0; x < a_.block_chunks.size(); ++x)
      for (std::size_t y = 0; y < b_.block_chunks.size(); ++y)
        if (same_fraction(static_cast<std::int64_t>(a_.block_chunks[x].size()),
                          static_cast<std::int64_t>(b_.block_chunks[y].size())))
          start.candidates[x][y / 64] |= std::uint64_t{1} << (y % 64);
    return solve(std::move(start));
  }

  std::int64_t branches() const { return branches_; }
  const std::vector<int>& block_map() const { return block_map_; }

 private:
  bool same_fraction(std::int64_t a_chunks, std::int64_t b_chunks) const {
    return a_chunks * b_.nchunks == b_chunks * a_.nchunks;
  }

  static bool compatible(const BlockedOp& x, const BlockedOp& y) { return x.kind == y.kind && x.order == y.order; }

  bool map_rank(SearchState& state, int a_rank, int b_rank) const {
    if (a_.rank_signature[static_cast<std::size_t>(a_rank)] != b_.rank_signature[static_cast<std::size_t>(b_rank)])
      return false;
    state.a_to_b[static_cast<std::size_t>(a_rank)] = b_rank;
    state.b_to_a[static_cast<std::size_t>(b_rank)] = a_rank;
    state.queue.push_back(a_rank);
    return true;
  }

  // sigma(X) = Y for the blocks of a matched pair of ops: X's blocks may only go into Y, the others
  // only outside it. False when a block of A is left with nowhere to go.
  bool constrain(SearchState& state, const BlockedOp& x, const BlockedOp& y) const {
    if (x.blocks.size() != y.blocks.size() || !same_fraction(x.weight, y.weight)) return false;
    Bits inside(words_, 0);
    for (int block : y.blocks) inside[static_cast<std::size_t>(block) / 64] |= std::uint64_t{1} << (block % 64);
    std::size_t next_inside = 0;
    for (std::size_t block = 0; block < state.candidates.size(); ++block) {
      const bool in_x = next_inside < x.blocks.size() && static_cast<std::size_t>(x.blocks[next_inside]) == block;
      if (in_x) ++next_inside;
      bool any = false;
      for (std::size_t word = 0; word < words_; ++word) {
        std::uint64_t& bits = state.candidates[block][word];
        bits &= in_x ? inside[word] : ~inside[word];
        any = any || bits != 0;
      }
      if (!any) return false;
    }
    return true;
  }

  enum class Progress { failed, complete, mapped, stuck };

  // Matches A's rank (mapped) with its image step by step: an op whose peer is mapped must have
  // its counterpart; an op whose peer is not is mapped when exactly one op of B fits it.
  Progress process(SearchState& state, int a_rank) const {
    const int b_rank = state.a_to_b[static_cast<std::size_t>(a_rank)];
    bool mapped = false;
    bool stuck = false;
    std::vector<std::pair<const BlockedOp*, const BlockedOp*>> matched;  // ops whose peers are mapped
    for (int k = 0; k < a_.steps; ++k) {
      const auto& x_ops = a_.ops[static_cast<std::size_t>(a_rank)][static_cast<std::size_t>(k)];
      const auto& y_ops = b_.ops[static_cast<std::size_t>(b_rank)][static_cast<std::size_t>(k)];
      if (x_ops.size() != y_ops.size()) return Progress::failed;
      for (const BlockedOp& x : x_ops) {
        const int image = state.a_to_b[static_cast<std::size_t>(x.peer)];
        if (image >= 0) {
          const auto y = std::find_if(y_ops.begin(), y_ops.end(), [&](const BlockedOp& op) {
            return compatible(x, op) && op.peer == image && same_fraction(x.weight, op.weight);
          });
          if (y == y_ops.end()) return Progress::failed;
          matched.emplace_back(&x, &*y);
          continue;
        }
        // (kind, peer, order) names one op of a step, so each fitting op has its own peer.
        int fits = 0;
        int fitting_peer = -1;
        for (const BlockedOp& y : y_ops)
          if (compatible(x, y) && state.b_to_a[static_cast<std::size_t>(y.peer)] < 0 && same_fraction(x.weight, y.weight) &&
              a_.rank_signature[static_cast<std::size_t>(x.peer)] == b_.rank_signature[static_cast<std::size_t>(y.peer)]) {
            ++fits;
            fitting_peer = y.peer;
          }
        if (fits == 0) return Progress::failed;
        if (fits == 1) {
          if (!map_rank(state, x.peer, fitting_peer)) return Progress::failed;
          mapped = true;
        } else {
          stuck = true;
        }
      }
    }
    if (mapped) return Progress::mapped;
    if (stuck) return Progress::stuck;
    // Every peer was mapped, so every op is matched one to one; each pair constrains the blocks.
    for (const auto& [x, y] : matched)
      if (!constrain(state, *x, *y)) return Progress::failed;
    state.done[static_cast<std::size_t>(a_rank)] = 1;
    return Progress::complete;
  }

  bool propagate(SearchState& state) const {
    for (;;) {
      while (!state.queue.empty()) {
        const int rank = state.queue.back();
        state.queue.pop_back();
        if (process(state, rank) == Progress::failed) return false;
      }
      bool changed = false;
      for (int rank = 0; rank < a_.nranks; ++rank) {
        if (state.a_to_b[static_cast<std::size_t>(rank)] < 0 || state.done[static_cast<std::size_t>(rank)]) continue;
        const Progress progress = process(state, rank);
        if (progress == Progress::failed) return false;
        changed = changed || progress == Progress::mapped || progress == Progress::complete;
      }
      if (!changed && state.queue.empty()) return true;
    }
  }

  // A's unmapped ranks to try next and the B ranks each may become: the peers of the first stuck
  // op, or (no mapped rank left with unmapped peers) the first unmapped rank and every free rank.
  std::pair<int, std::vector<int>> choice(const SearchState& state) const {
    for (int rank = 0; rank < a_.nranks; ++rank) {
      if (state.a_to_b[static_cast<std::size_t>(rank)] < 0 || state.done[static_cast<std::size_t>(rank)]) continue;
      const int b_rank = state.a_to_b[static_cast<std::size_t>(rank)];
      for (int k = 0; k < a_.steps; ++k) {
        const auto& y_ops = b_.ops[static_cast<std::size_t>(b_rank)][static_cast<std::size_t>(k)];
        for (const BlockedOp& x : a_.ops[static_cast<std::size_t>(rank)][static_cast<std::size_t>(k)]) {
          if (state.a_to_b[static_cast<std::size_t>(x.peer)] >= 0) continue;
          std::vector<int> options;
          for (const BlockedOp& y : y_ops)
            if (compatible(x, y) && state.b_to_a[static_cast<std::size_t>(y.peer)] < 0 &&
                std::find(options.begin(), options.end(), y.peer) == options.end())
              options.push_back(y.peer);
          return {x.peer, options};
        }
      }
    }
    for (int rank = 0; rank < a_.nranks; ++rank)
      if (state.a_to_b[static_cast<std::size_t>(rank)] < 0) {
        std::vector<int> options;
        for (int b_rank = 0; b_rank < b_.nranks; ++b_rank)
          if (state.b_to_a[static_cast<std::size_t>(b_rank)] < 0) options.push_back(b_rank);
        return {rank, options};
      }
    return {-1, {}};
  }

  // Kuhn's augmenting paths over the candidate bits: a block map, or nothing.
  std::optional<std::vector<int>> match_blocks(const SearchState& state) const {
    const std::size_t a_blocks = a_.block_chunks.size();
    std::vector<int> b_owner(b_.block_chunks.size(), -1);
    for (std::size_t x = 0; x < a_blocks; ++x) {
      std::vector<char> seen(b_.block_chunks.size(), 0);
      const auto augment = [&](auto&& self, std::size_t block) -> bool {
        for (std::size_t y = 0; y < b_.block_chunks.size(); ++y) {
          if (!((state.candidates[block][y / 64] >> (y % 64)) & 1U) || seen[y]) continue;
          seen[y] = 1;
          if (b_owner[y] < 0 || self(self, static_cast<std::size_t>(b_owner[y]))) {
            b_owner[y] = static_cast<int>(block);
            return true;
          }
        }
        return false;
      };
      if (!augment(augment, x)) return std::nullopt;
    }
    std::vector<int> map(a_blocks, -1);
    for (std::size_t y = 0; y < b_owner.size(); ++y)
      if (b_owner[y] >= 0) map[static_cast<std::size_t>(b_owner[y])] = static_cast<int>(y);
    return map;
  }

  // The whole of A, relabelled, equals B (each step's ops compared as sorted lists).
  bool holds(const SearchState& state, const std::vector<int>& block_map) const {
    using Key = std::tuple<int, int, int, std::vector<int>>;
    const auto key_of = [](const BlockedOp& op, int peer, std::vector<int> blocks) {
      std::sort(blocks.begin(), blocks.end());
      return Key{static_cast<int>(op.kind), peer, op.order, std::move(blocks)};
    };
    for (int rank = 0; rank < a_.nranks; ++rank) {
      const int b_rank = state.a_to_b[static_cast<std::size_t>(rank)];
      for (int k = 0; k < a_.steps; ++k) {
        std::vector<Key> mapped;
        std::vector<Key> expected;
        for (const BlockedOp& x : a_.ops[static_cast<std::size_t>(rank)][static_cast<std::size_t>(k)]) {
          std::vector<int> blocks;
          for (int block : x.blocks) blocks.push_back(block_map[static_cast<std::size_t>(block)]);
          mapped.push_back(key_of(x, state.a_to_b[static_cast<std::size_t>(x.peer)], std::move(blocks)));
        }
        for (const BlockedOp& y : b_.ops[static_cast<std::size_t>(b_rank)][static_cast<std::size_t>(k)])
          expected.push_back(key_of(y, y.peer, y.blocks));
        std::sort(mapped.begin(), mapped.end());
        std::sort(expected.begin(), expected.end());
        if (mapped != expected) return false;
      }
    }
    return true;
  }

  std::optional<SearchState> solve(SearchState state) {
    if (!propagate(state)) return std::nullopt;
    const auto [rank, options] = choice(state);
    if (rank < 0) {
      const auto block_map = match_blocks(state);
      if (!block_map || !holds(state, *block_map)) return std::nullopt;
      block_map_ = *block_map;
      return state;
    }
    for (int option : options) {
      if (++branches_ > branch_limit_) throw SearchLimitReached{};
      SearchState next = state;
      if (!map_rank(next, rank, option)) continue;
      if (auto found = solve(std::move(next))) return found;
    }
    return std::nullopt;
  }

  const BlockedSchedule& a_;
  const BlockedSchedule& b_;
  std::int64_t branch_limit_;
  std::size_t words_;
  std::int64_t branches_ = 0;
  std::vector<int> block_map_;
};

}  // namespace

std::string describe_chunks(const std::vector<std::int64_t>& chunks) {
  std::string text;
  for (std::size_t i = 0; i < chunks.size();) {
    std::size_t j = i;
    while (j + 1 < chunks.size() && chunks[j + 1] == chunks[j] + 1) ++j;
    text += fmt::format("{}{}", text.empty() ? "" : ",", chunks[i]);
    if (j > i) text += fmt::format("-{}", chunks[j]);
    i = j + 1;
  }
  return text;
}

EquivalenceResult find_equivalence(const Schedule& a, const Schedule& b, std::int64_t branch_limit) {
  EquivalenceResult result;
  if (a.collective != b.collective) {
    result.difference = fmt::format("A is {}, B is {}", name_of(a.collective), name_of(b.collective));
    return result;
  }
  if (a.nranks != b.nranks) {
    result.difference = fmt::format("A has {} ranks, B has {}", a.nranks, b.nranks);
    return result;
  }
  const BlockedSchedule blocked_a = block_schedule(a);
  const BlockedSchedule blocked_b = block_schedule(b);
  result.difference = first_invariant_difference(blocked_a, blocked_b);
  if (!result.difference.empty()) return result;
  Search search(blocked_a, blocked_b, branch_limit);
  std::optional<SearchState> found;
  try {
    found = search.run();
  } catch (const SearchLimitReached&) {
    result.decided = false;
    result.branches = search.branches();
    result.difference = fmt::format("undecided: the search tried {} rank choices without an answer (the invariants agree)",
                                    branch_limit);
    return result;
  }
  result.branches = search.branches();
  if (!found) {
    result.difference = fmt::format(
        "no relabelling maps A onto B, though every step's op kinds and fractions agree: the ranks' "
        "partners or the chunks they exchange are arranged differently ({} rank choices tried)",
        result.branches);
    return result;
  }
  result.equivalent = true;
  result.rank_map = found->a_to_b;
  for (std::size_t x = 0; x < blocked_a.block_chunks.size(); ++x)
    result.block_map.push_back(
        {blocked_a.block_chunks[x], blocked_b.block_chunks[static_cast<std::size_t>(search.block_map()[x])]});
  return result;
}

}  // namespace ringlab
