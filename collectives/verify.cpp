#include "collectives/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <cstddef>
#include <optional>
#include <tuple>

#include "collectives/step_clock.hpp"

namespace ringlab {

namespace {

constexpr std::size_t max_reported_errors = 20;

class ErrorList {
 public:
  explicit ErrorList(const Schedule& schedule)
      : prefix_(fmt::format("{} {}, {} ranks", schedule.algorithm, name_of(schedule.collective), schedule.nranks)) {}
  void add(int rank, int step, std::string what) {
    ++count_;
    if (errors_.size() < max_reported_errors)
      errors_.push_back(fmt::format("{}: rank {}, step {}: {}", prefix_, rank, step, what));
  }
  void add(std::string what) {
    ++count_;
    if (errors_.size() < max_reported_errors) errors_.push_back(fmt::format("{}: {}", prefix_, what));
  }
  // The same, with the text made only when it will be kept: describing a bitset costs nranks, and
  // a wrong schedule may have a violation per (rank, chunk).
  template <typename MakeText>
  void add_lazily(int rank, int step, MakeText&& make_text) {
    if (errors_.size() < max_reported_errors) add(rank, step, make_text());
    else ++count_;
  }
  std::int64_t count() const { return count_; }
  std::vector<std::string> take() { return std::move(errors_); }

 private:
  std::string prefix_;
  std::vector<std::string> errors_;
  std::int64_t count_ = 0;
};

// An op with where it came from, for matching sends with receives.
struct OpRef {
  int source;       // sending rank
  int destination;  // receiving rank
  int rank;         // the rank whose program holds the op
  std::size_t index;
};

struct MatchedReceive {
  int rank;              // receiving rank
  std::size_t op_index;  // index of the receive in the rank's step
  int sender;
  ChunkRange source_chunks;
};

bool is_receive(OpKind kind) { return kind != OpKind::send; }

std::vector<RankProgram> materialise(const Schedule& schedule) {
  std::vector<RankProgram> programs;
  programs.reserve(static_cast<std::size_t>(schedule.nranks));
  for (int rank = 0; rank < schedule.nranks; ++rank) programs.push_back(schedule.program(rank));
  return programs;
}

void check_header(const Schedule& schedule, ErrorList& errors) {
  if (schedule.nranks < 1) errors.add(fmt::format("nranks must be at least 1 (got {})", schedule.nranks));
  if (schedule.nchunks < 1) errors.add(fmt::format("nchunks must be at least 1 (got {})", schedule.nchunks));
  const std::size_t expected_programs = schedule.circulant ? 1 : static_cast<std::size_t>(std::max(schedule.nranks, 0));
  if (schedule.programs.size() != expected_programs)
    errors.add(fmt::format("has {} rank programs, expected {}", schedule.programs.size(), expected_programs));
  const bool blocks = schedule.collective == Collective::reduce_scatter ||
                      schedule.collective == Collective::allgather || schedule.circulant;
  if (blocks && schedule.nranks >= 1 && schedule.nchunks % schedule.nranks != 0)
    errors.add(fmt::format("nchunks ({}) must be a multiple of nranks ({}) for per-rank blocks",
                           schedule.nchunks, schedule.nranks));
  if (schedule.root < 0 || schedule.root >= std::max(schedule.nranks, 1))
    errors.add(fmt::format("root {} is outside [0, {})", schedule.root, schedule.nranks));
}

void check_ops(const Schedule& schedule, const std::vector<RankProgram>& programs, ErrorList& errors) {
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    const auto& steps = programs[static_cast<std::size_t>(rank)].steps;
    for (std::size_t step = 0; step < steps.size(); ++step)
      for (const Op& op : steps[step])
        if (std::string problem = op_problem(op, rank, schedule.nranks, schedule.nchunks); !problem.empty())
          errors.add(rank, static_cast<int>(step), std::move(problem));
  }
}

// Pairs the i-th send a->b of a step with the i-th receive at b from a. Returns the matched
// receives per step (empty optional when matching failed, with errors recorded).
std::optional<std::vector<std::vector<MatchedReceive>>> match_steps(const Schedule& schedule,
                                                                    const std::vector<RankProgram>& programs,
                                                                    int steps, ErrorList& errors) {
  std::vector<std::vector<MatchedReceive>> matched(static_cast<std::size_t>(steps));
  bool failed = false;
  for (int step = 0; step < steps; ++step) {
    std::vector<OpRef> sends;
    std::vector<OpRef> receives;
    for (int rank = 0; rank < schedule.nranks; ++rank) {
      const auto& rank_steps = programs[static_cast<std::size_t>(rank)].steps;
      if (static_cast<std::size_t>(step) >= rank_steps.size()) continue;
      const Step& ops = rank_steps[static_cast<std::size_t>(step)];
      for (std::size_t index = 0; index < ops.size(); ++index) {
        if (is_receive(ops[index].kind))
          receives.push_back({ops[index].peer, rank, rank, index});
        else
          sends.push_back({rank, ops[index].peer, rank, index});
      }
    }
    auto by_pair = [](const OpRef& a, const OpRef& b) {
      return std::tie(a.source, a.destination, a.index) < std::tie(b.source, b.destination, b.index);
    };
    std::sort(sends.begin(), sends.end(), by_pair);
    std::sort(receives.begin(), receives.end(), by_pair);
    auto op_of = [&](const OpRef& ref) -> const Op& {
      return programs[static_cast<std::size_t>(ref.rank)].steps[static_cast<std::size_t>(step)][ref.index];
    };
    std::size_t s = 0;
    std::size_t r = 0;
    while (s < sends.size() || r < receives.size()) {
      const bool take_send = r == receives.size() ||
                             (s < sends.size() && std::tie(sends[s].source, sends[s].destination) <
                                                      std::tie(receives[r].source, receives[r].destination));
      const bool take_receive = s == sends.size() ||
                                (r < receives.size() && std::tie(receives[r].source, receives[r].destination) <
                                                            std::tie(sends[s].source, sends[s].destination));
      if (take_send) {
        const Op& op = op_of(sends[s]);
        errors.add(sends[s].rank, step,
                   fmt::format("send of chunks [{}, {}) to rank {} has no matching receive at rank {} in step {}",
                               op.chunks.begin, op.chunks.end, op.peer, op.peer, step));
        failed = true;
        ++s;
      } else if (take_receive) {
        const Op& op = op_of(receives[r]);
        errors.add(receives[r].rank, step,
                   fmt::format("{} of chunks [{}, {}) from rank {} has no matching send at rank {} in step {}",
                               name_of(op.kind), op.chunks.begin, op.chunks.end, op.peer, op.peer, step));
        failed = true;
        ++r;
      } else {
        const Op& send = op_of(sends[s]);
        const Op& receive = op_of(receives[r]);
        if (send.chunks != receive.chunks) {
          errors.add(receives[r].rank, step,
                     fmt::format("{} of chunks [{}, {}) from rank {} is matched by a send of chunks [{}, {}); "
                                 "a receive must name the chunks its matching send sends",
                                 name_of(receive.kind), receive.chunks.begin, receive.chunks.end, sends[s].rank,
                                 send.chunks.begin, send.chunks.end));
          failed = true;
        } else {
          matched[static_cast<std::size_t>(step)].push_back(
              {receives[r].rank, receives[r].index, sends[s].rank, send.chunks});
        }
        ++s;
        ++r;
      }
    }
  }
  if (failed) return std::nullopt;
  return matched;
}

// Bitset of contributing ranks for every (rank, chunk).
class ContributionState {
 public:
  ContributionState(int nranks, std::int64_t nchunks)
      : words_((static_cast<std::size_t>(nranks) + 63) / 64),
        nchunks_(static_cast<std::size_t>(nchunks)),
        bits_(static_cast<std::size_t>(nranks) * nchunks_ * words_, 0) {}
  std::uint64_t* at(int rank, std::int64_t chunk) {
    return bits_.data() + (static_cast<std::size_t>(rank) * nchunks_ + static_cast<std::size_t>(chunk)) * words_;
  }
  std::size_t words() const { return words_; }

 private:
  std::size_t words_;
  std::size_t nchunks_;
  std::vector<std::uint64_t> bits_;
};

bool is_empty(const std::uint64_t* bits, std::size_t words) {
  return std::all_of(bits, bits + words, [](std::uint64_t word) { return word == 0; });
}

std::vector<std::uint64_t> single(int rank, std::size_t words) {
  std::vector<std::uint64_t> bits(words, 0);
  bits[static_cast<std::size_t>(rank) / 64] |= std::uint64_t{1} << (rank % 64);
  return bits;
}

std::vector<std::uint64_t> everyone(int nranks, std::size_t words) {
  std::vector<std::uint64_t> bits(words, 0);
  for (int rank = 0; rank < nranks; ++rank) bits[static_cast<std::size_t>(rank) / 64] |= std::uint64_t{1} << (rank % 64);
  return bits;
}

std::string describe(const std::uint64_t* bits, int nranks) {
  std::vector<int> members;
  for (int rank = 0; rank < nranks; ++rank)
    if (bits[static_cast<std::size_t>(rank) / 64] >> (rank % 64) & 1U) members.push_back(rank);
  if (members.empty()) return "no defined value";
  if (static_cast<int>(members.size()) == nranks) return "all ranks";
  std::string text = "ranks {";
  for (std::size_t i = 0; i < members.size() && i < 8; ++i) text += (i ? ", " : "") + std::to_string(members[i]);
  if (members.size() > 8) text += fmt::format(", ... ({} of {})", members.size(), nranks);
  return text + "}";
}

// Owner of chunk c for the initial and final states of reduce-scatter / all-gather.
int block_owner(std::int64_t chunk, const Schedule& schedule) {
  return static_cast<int>(chunk / (schedule.nchunks / schedule.nranks));
}

void initialise(ContributionState& state, const Schedule& schedule) {
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    for (std::int64_t chunk = 0; chunk < schedule.nchunks; ++chunk) {
      bool defined = true;
      if (schedule.collective == Collective::allgather) defined = block_owner(chunk, schedule) == rank;
      if (schedule.collective == Collective::broadcast) defined = rank == schedule.root;
      if (defined) {
        const auto bits = single(rank, state.words());
        std::copy(bits.begin(), bits.end(), state.at(rank, chunk));
      }
    }
  }
}

void check_final(ContributionState& state, const Schedule& schedule, int steps, ErrorList& errors) {
  const std::size_t words = state.words();
  const auto all = everyone(schedule.nranks, words);
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    for (std::int64_t chunk = 0; chunk < schedule.nchunks; ++chunk) {
      std::vector<std::uint64_t> expected;
      switch (schedule.collective) {
        case Collective::allreduce: expected = all; break;
        case Collective::reduce_scatter:
          if (block_owner(chunk, schedule) != rank) continue;
          expected = all;
          break;
        case Collective::allgather: expected = single(block_owner(chunk, schedule), words); break;
        case Collective::broadcast: expected = single(schedule.root, words); break;
      }
      const std::uint64_t* actual = state.at(rank, chunk);
      if (!std::equal(expected.begin(), expected.end(), actual))
        errors.add_lazily(rank, steps, [&] {
          return fmt::format("chunk {} ends holding {}, expected {}", chunk, describe(actual, schedule.nranks),
                             describe(expected.data(), schedule.nranks));
        });
    }
  }
}

// Symbolic execution of the matched steps.
void execute_symbolically(const Schedule& schedule, const std::vector<RankProgram>& programs,
                          const std::vector<std::vector<MatchedReceive>>& matched, ErrorList& errors) {
  ContributionState state(schedule.nranks, schedule.nchunks);
  initialise(state, schedule);
  const std::size_t words = state.words();
  const int steps = static_cast<int>(matched.size());
  // Per-chunk stamps to find a chunk written twice in one step by a plain receive.
  std::vector<std::int64_t> write_stamp(static_cast<std::size_t>(schedule.nchunks), -1);
  std::vector<std::int64_t> plain_stamp(static_cast<std::size_t>(schedule.nchunks), -1);
  std::int64_t stamp = 0;
  for (int step = 0; step < steps; ++step) {
    auto receives = matched[static_cast<std::size_t>(step)];
    std::sort(receives.begin(), receives.end(), [](const MatchedReceive& a, const MatchedReceive& b) {
      return std::tie(a.rank, a.op_index) < std::tie(b.rank, b.op_index);
    });
    // Phase 1: read every incoming value from the start-of-step state.
    std::vector<std::uint64_t> incoming;
    for (const MatchedReceive& receive : receives) {
      for (std::int64_t j = 0; j < receive.source_chunks.size(); ++j) {
        const std::uint64_t* source = state.at(receive.sender, (receive.source_chunks.begin + j) % schedule.nchunks);
        incoming.insert(incoming.end(), source, source + words);
      }
    }
    // Phase 2: apply in op order.
    std::size_t offset = 0;
    int current_rank = -1;
    for (const MatchedReceive& receive : receives) {
      if (receive.rank != current_rank) {
        current_rank = receive.rank;
        ++stamp;
      }
      const Op& op = programs[static_cast<std::size_t>(receive.rank)].steps[static_cast<std::size_t>(step)][receive.op_index];
      for (std::int64_t j = 0; j < op.chunks.size(); ++j, offset += words) {
        const std::int64_t chunk = (op.chunks.begin + j) % schedule.nchunks;
        const std::uint64_t* value = incoming.data() + offset;
        std::uint64_t* target = state.at(receive.rank, chunk);
        const auto index = static_cast<std::size_t>(chunk);
        const bool written_before = write_stamp[index] == stamp;
        if (op.kind == OpKind::recv || plain_stamp[index] == stamp) {
          if (written_before)
            errors.add(receive.rank, step,
                       fmt::format("chunk {} is written by a plain recv and another receive in the same step "
                                   "(from rank {}); the result would depend on arrival order",
                                   chunk, receive.sender));
        }
        write_stamp[index] = stamp;
        if (op.kind == OpKind::recv) {
          plain_stamp[index] = stamp;
          std::copy(value, value + words, target);
          continue;
        }
        if (is_empty(value, words) || is_empty(target, words)) {
          errors.add_lazily(receive.rank, step, [&] {
            return fmt::format("recv_reduce of chunk {} from rank {} combines data that was never defined "
                               "(local: {}, incoming: {})",
                               chunk, receive.sender, describe(target, schedule.nranks),
                               describe(value, schedule.nranks));
          });
        }
        for (std::size_t w = 0; w < words; ++w) {
          if ((target[w] & value[w]) != 0) {
            const std::uint64_t overlap = target[w] & value[w];
            int twice = static_cast<int>(w * 64);
            while (((overlap >> (twice % 64)) & 1U) == 0) ++twice;
            errors.add(receive.rank, step,
                       fmt::format("recv_reduce of chunk {} from rank {} counts the contribution of rank {} twice",
                                   chunk, receive.sender, twice));
            break;
          }
        }
        for (std::size_t w = 0; w < words; ++w) target[w] |= value[w];
      }
    }
  }
  check_final(state, schedule, steps, errors);
}

}  // namespace

std::string op_problem(const Op& op, int rank, int nranks, std::int64_t nchunks) {
  std::string problem;
  if (op.peer < 0 || op.peer >= nranks)
    problem = fmt::format("{} names peer {}, outside [0, {})", name_of(op.kind), op.peer, nranks);
  else if (op.peer == rank)
    problem = fmt::format("{} names itself as peer", name_of(op.kind));
  const ChunkRange range = op.chunks;
  if (range.begin < 0 || range.begin >= nchunks || range.end <= range.begin || range.end > range.begin + nchunks)
    problem += fmt::format("{}{} has chunk range [{}, {}); need 0 <= begin < nchunks ({}) and begin < end <= begin + "
                           "nchunks",
                           problem.empty() ? "" : "; ", name_of(op.kind), range.begin, range.end, nchunks);
  return problem;
}

std::vector<std::string> check_structure(const Schedule& schedule) {
  ErrorList errors(schedule);
  check_header(schedule, errors);
  if (errors.count() > 0) return errors.take();
  const std::vector<RankProgram> programs = materialise(schedule);
  check_ops(schedule, programs, errors);
  if (errors.count() > 0) return errors.take();
  match_steps(schedule, programs, schedule.num_steps(), errors);
  return errors.take();
}

VerifierCost verifier_cost(const Schedule& schedule) {
  const double nranks = std::max(schedule.nranks, 0);
  const double nchunks = static_cast<double>(std::max<std::int64_t>(schedule.nchunks, 0));
  const double words = std::ceil(std::max(nranks, 1.0) / 64.0);
  // A circulant template stands for every rank: its ops count nranks times.
  const double copies = schedule.circulant ? nranks : 1.0;
  double ops = 0;
  double chunks_received = 0;
  for (const RankProgram& program : schedule.programs)
    for (const Step& step : program.steps)
      for (const Op& op : step) {
        ops += copies;
        if (op.kind != OpKind::send)
          chunks_received += copies * static_cast<double>(std::max<std::int64_t>(op.chunks.size(), 0));
      }
  // Per op: the materialised Op, its matching reference and matched receive (about 64 B in all).
  constexpr double bytes_per_op = 64.0;
  VerifierCost cost;
  cost.state_bytes = nranks * nchunks * words * 8.0 + ops * bytes_per_op;
  cost.work = 2.0 * nranks * nchunks * words + chunks_received * words + ops +
              static_cast<double>(schedule.num_steps()) * nranks;
  return cost;
}

std::string verifier_cost_problem(const Schedule& schedule) {
  const VerifierCost cost = verifier_cost(schedule);
  constexpr double gib = 1 << 30;
  if (cost.state_bytes > max_verifier_state_bytes)
    return fmt::format("{} ranks x {} chunks need about {:.2f} GiB of verifier state (ranks x chunks x ranks bits, "
                       "plus the ops); the limit is {:g} GiB: verify a schedule with fewer chunks or ranks",
                       schedule.nranks, schedule.nchunks, cost.state_bytes / gib, max_verifier_state_bytes / gib);
  if (cost.work > max_verifier_work)
    return fmt::format("{} ranks x {} chunks over {} steps need about {:.3g} verifier operations (bitset words of "
                       "every chunk received, every rank visited in every step); the limit is {:.3g}: verify a "
                       "schedule with fewer ranks, chunks or steps",
                       schedule.nranks, schedule.nchunks, schedule.num_steps(), cost.work, max_verifier_work);
  return {};
}

VerifyResult verify(const Schedule& schedule) {
  VerifyResult result;
  ErrorList errors(schedule);
  check_header(schedule, errors);
  if (errors.count() == 0)
    if (std::string problem = verifier_cost_problem(schedule); !problem.empty()) errors.add(std::move(problem));
  if (errors.count() == 0) {
    const std::vector<RankProgram> programs = materialise(schedule);
    check_ops(schedule, programs, errors);
    result.steps = schedule.num_steps();
    result.chunks_sent.assign(static_cast<std::size_t>(schedule.nranks), 0);
    for (int rank = 0; rank < schedule.nranks; ++rank)
      for (const Step& step : programs[static_cast<std::size_t>(rank)].steps)
        for (const Op& op : step)
          if (op.kind == OpKind::send) result.chunks_sent[static_cast<std::size_t>(rank)] += op.chunks.size();
    const std::int64_t most = result.chunks_sent.empty()
                                  ? 0
                                  : *std::max_element(result.chunks_sent.begin(), result.chunks_sent.end());
    result.max_sent_fraction = static_cast<double>(most) / static_cast<double>(schedule.nchunks);
    if (errors.count() == 0) {
      if (auto matched = match_steps(schedule, programs, result.steps, errors))
        execute_symbolically(schedule, programs, *matched, errors);
    }
  }
  result.error_count = errors.count();
  result.errors = errors.take();
  return result;
}

CriticalPath critical_path(const Schedule& schedule, const CostModel& model, double message_bytes) {
  if (const auto problems = check_structure(schedule); !problems.empty())
    throw std::invalid_argument("cannot price a malformed schedule: " + problems.front());
  const auto nranks = static_cast<std::size_t>(schedule.nranks);
  const std::vector<RankProgram> programs = materialise(schedule);
  const int steps = schedule.num_steps();
  const double chunk_bytes = message_bytes / static_cast<double>(schedule.nchunks);
  // The step clock's times with their terms: a route's latency is one alpha, a port's load its
  // bytes at beta, a reduction its bytes at gamma.
  const CriticalPath latency{model.alpha_seconds, 1.0, 0.0, 0.0};
  auto at_beta = [&](double bytes) { return CriticalPath{model.beta_seconds_per_byte * bytes, 0.0, bytes, 0.0}; };
  auto at_gamma = [&](double bytes) { return CriticalPath{model.gamma_seconds_per_byte * bytes, 0.0, 0.0, bytes}; };
  std::vector<CriticalPath> finish(nranks);
  std::vector<double> out_bytes(nranks);
  std::vector<double> in_bytes(nranks);
  for (int step = 0; step < steps; ++step) {
    std::fill(out_bytes.begin(), out_bytes.end(), 0.0);
    std::fill(in_bytes.begin(), in_bytes.end(), 0.0);
    auto ops_of = [&](std::size_t rank) -> const Step* {
      const auto& rank_steps = programs[rank].steps;
      return static_cast<std::size_t>(step) < rank_steps.size() ? &rank_steps[static_cast<std::size_t>(step)] : nullptr;
    };
    for (std::size_t rank = 0; rank < nranks; ++rank)
      if (const Step* ops = ops_of(rank))
        for (const Op& op : *ops)
          (op.kind == OpKind::send ? out_bytes : in_bytes)[rank] += static_cast<double>(op.chunks.size()) * chunk_bytes;
    std::vector<CriticalPath> next = finish;
    for (std::size_t rank = 0; rank < nranks; ++rank) {
      const Step* ops = ops_of(rank);
      if (!ops || ops->empty()) continue;
      StepClock<CriticalPath> clock(finish[rank]);
      double reduced = 0.0;
      for (const Op& op : *ops) {
        const auto peer = static_cast<std::size_t>(op.peer);
        const std::size_t sender = op.kind == OpKind::send ? rank : peer;
        const std::size_t receiver = op.kind == OpKind::send ? peer : rank;
        clock.transfer(finish[sender], finish[receiver], latency, at_beta(out_bytes[sender]), at_beta(in_bytes[receiver]));
        if (op.kind == OpKind::recv_reduce) reduced += static_cast<double>(op.chunks.size()) * chunk_bytes;
      }
      next[rank] = clock.advance(at_gamma(reduced));
    }
    finish = std::move(next);
  }
  CriticalPath result;
  for (const CriticalPath& path : finish) result = later_of(result, path);
  return result;
}

}  // namespace ringlab
