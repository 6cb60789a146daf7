#include "collectives/execute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "collectives/capabilities.hpp"
#include "collectives/element_coverage.hpp"
#include "collectives/reduce.hpp"
#include "collectives/step_plan.hpp"
#include "collectives/verify.hpp"

namespace ringlab {

namespace {

// Tags: a step's messages carry the step index; the consistency check uses tags above them.
constexpr int step_tag_limit = 30000;
constexpr int agree_tag_description = 32000;
constexpr int agree_tag_reply = 32001;
constexpr int agree_tag_verdict = 32002;
constexpr std::size_t agree_message_bytes = 1024;
// Without segmentation a transfer is still cut below MPI's int count limit.
constexpr std::int64_t max_piece_bytes = std::int64_t{1} << 30;

std::array<char, agree_message_bytes> pack(std::string_view text) {
  std::array<char, agree_message_bytes> buffer{};
  std::memcpy(buffer.data(), text.data(), std::min(text.size(), agree_message_bytes - 1));
  return buffer;
}

std::string unpack(const std::array<char, agree_message_bytes>& buffer) {
  return std::string(buffer.data(), strnlen(buffer.data(), buffer.size()));
}

std::span<std::byte> bytes_of(std::array<char, agree_message_bytes>& buffer) {
  return std::as_writable_bytes(std::span(buffer));
}

void check_own_program(const RankPlan& plan) {
  for (std::size_t step = 0; step < plan.program.steps.size(); ++step)
    for (const Op& op : plan.program.steps[step])
      if (const std::string problem = op_problem(op, plan.rank, plan.nranks, plan.nchunks); !problem.empty())
        throw std::invalid_argument(fmt::format("{} {}: rank {}, step {}: {}", plan.algorithm,
                                                name_of(plan.collective), plan.rank, step, problem));
}

}  // namespace

RankPlan plan_for_rank(const Schedule& schedule, int rank) {
  if (const auto problems = check_structure(schedule); !problems.empty()) {
    std::string message = fmt::format("schedule '{}' cannot be executed:", schedule.algorithm);
    for (const std::string& problem : problems) message += "\n  " + problem;
    throw std::invalid_argument(message);
  }
  RankPlan plan{schedule.algorithm, schedule.collective, schedule.nranks, rank, schedule.root, schedule.nchunks,
                schedule.program(rank)};
  check_own_program(plan);
  return plan;
}

std::size_t checked_byte_count(std::int64_t count, DataType type) {
  if (count < 0) throw std::invalid_argument(fmt::format("element count must not be negative (got {})", count));
  const auto element = static_cast<std::int64_t>(element_size(type));
  if (count > std::numeric_limits<std::int64_t>::max() / element)
    throw std::invalid_argument(fmt::format("count {} of {} elements overflows the buffer size in bytes; use a "
                                            "smaller count",
                                            count, name_of(type)));
  return static_cast<std::size_t>(count * element);
}

void check_ranks_agree(Communicator& comm, std::string_view description, std::chrono::milliseconds timeout,
                       std::string_view subject) {
  const int nranks = comm.size();
  if (nranks == 1) return;
  auto deadline = [&] { return Clock::now() + timeout; };
  std::string verdict;
  if (comm.rank() == 0) {
    auto reference = pack(description);
    std::vector<RequestPtr> sends;
    for (int peer = 1; peer < nranks; ++peer)
      sends.push_back(comm.post_send(bytes_of(reference), peer, agree_tag_description));
    std::vector<std::array<char, agree_message_bytes>> replies(static_cast<std::size_t>(nranks));
    for (int peer = 1; peer < nranks; ++peer) {
      comm.post_recv(bytes_of(replies[static_cast<std::size_t>(peer)]), peer, agree_tag_reply)
          ->wait(deadline(), "configuration check (reply)");
      const std::string theirs = unpack(replies[static_cast<std::size_t>(peer)]);
      if (verdict.empty() && theirs != unpack(reference))
        verdict = fmt::format("ranks disagree on {}: rank 0 has [{}] but rank {} has [{}]", subject,
                              unpack(reference), peer, theirs);
    }
    for (auto& send : sends) send->wait(deadline(), "configuration check (description)");
    auto verdict_buffer = pack(verdict);
    std::vector<RequestPtr> verdicts;
    for (int peer = 1; peer < nranks; ++peer)
      verdicts.push_back(comm.post_send(bytes_of(verdict_buffer), peer, agree_tag_verdict));
    for (auto& send : verdicts) send->wait(deadline(), "configuration check (verdict)");
  } else {
    std::array<char, agree_message_bytes> reference{};
    comm.post_recv(bytes_of(reference), 0, agree_tag_description)->wait(deadline(), "configuration check (description)");
    auto mine = pack(description);
    comm.post_send(bytes_of(mine), 0, agree_tag_reply)->wait(deadline(), "configuration check (reply)");
    std::array<char, agree_message_bytes> verdict_buffer{};
    comm.post_recv(bytes_of(verdict_buffer), 0, agree_tag_verdict)->wait(deadline(), "configuration check (verdict)");
    verdict = unpack(verdict_buffer);
  }
  if (!verdict.empty()) throw CommunicationError(verdict);
}

// How one rank runs a step (see schedule.hpp for the semantics):
// 1. The step's plan (step_plan.hpp) says where each send reads its piece: where the piece's
//    current value lives, the output once a step wrote it there, otherwise the input (out-of-place
//    calls start with everything in the input, so there is no up-front copy); a piece that lives
//    partly in each is first completed in the output. Reducing receives find their left operand
//    the same way.
// 2. A receive lands straight in the output (and a reducing one combines there as it arrives,
//    when the backend can) unless the plan sends it to scratch (a send of this step reads the
//    same output elements or another receive of this step writes them); those are combined, in op
//    order, once the overlapping sends completed.
// 3. After the last step, elements no step wrote are copied from the input.
void Executor::run(const RankPlan& plan, Communicator& comm, const void* send, void* recv, std::int64_t count,
                   DataType type, ReduceOp op, const ExecuteOptions& options) {
  const std::size_t total_bytes = checked_byte_count(count, type);
  if (plan.nranks != comm.size() || plan.rank != comm.rank())
    throw std::invalid_argument(fmt::format("schedule '{}' is for rank {} of {} but the {} communicator is rank {} of {}",
                                            plan.algorithm, plan.rank, plan.nranks, comm.backend_name(), comm.rank(),
                                            comm.size()));
  if (total_bytes > 0 && (send == nullptr || recv == nullptr))
    throw std::invalid_argument("executor: null buffer with a non-zero count");
  if (options.check_consistency) {
    try {
      check_ranks_agree(comm,
                        fmt::format("algorithm={} collective={} ranks={} count={} type={} op={} segment_bytes={}",
                                    plan.algorithm, name_of(plan.collective), plan.nranks, count, name_of(type),
                                    name_of(op), options.segment_bytes),
                        options.timeout);
    } catch (const TimeoutError& error) {
      throw TimeoutError(fmt::format("{} [{} {}, the configuration check before step 0, after --timeout {} s]",
                                     error.what(), plan.algorithm, name_of(plan.collective),
                                     static_cast<double>(options.timeout.count()) / 1000.0));
    }
  }
  const auto* input = static_cast<const std::byte*>(send);
  auto* output = static_cast<std::byte*>(recv);
  DeviceData& data = data_work(comm);  // the backend's, or the host default
  const bool output_on_device = total_bytes > 0 && data.is_device_memory(output);
  ElementCoverage in_output;  // elements whose current value is in `output`
  if (send == recv) in_output.add(0, count);

  const std::size_t element = element_size(type);
  const std::int64_t piece_limit_bytes =
      options.segment_bytes == 0 ? max_piece_bytes
                                 : std::min<std::int64_t>(static_cast<std::int64_t>(options.segment_bytes), max_piece_bytes);
  const std::int64_t piece_elements = std::max<std::int64_t>(1, piece_limit_bytes / static_cast<std::int64_t>(element));
  auto bytes = [element](std::int64_t elements) { return static_cast<std::size_t>(elements) * element; };
  // Copies the parts of [first, last) that are not yet in the output from the input.
  auto complete_in_output = [&](std::int64_t first, std::int64_t last) {
    for (const ElementCoverage::Range& gap : in_output.gaps(first, last))
      data.copy(output + bytes(gap.first), input + bytes(gap.first), bytes(gap.last - gap.first));
    in_output.add(first, last);
  };
  const PieceCut cut{count, plan.nchunks, piece_elements};
  ReceiveReduce* const combining = comm.receive_reduce();
  const CombinesOnReceive combines_on_receive = [combining](int peer) {
    return combining != nullptr && combining->can_reduce_on_receive(peer);
  };
  // A piece's buffer: a send's, or a reducing receive's left operand (indexed like the output).
  auto source_of = [&](const PlannedPiece& planned) -> const std::byte* { return planned.reads_output ? output : input; };

  // Each step is posted straight from its plan: sent[i] and received[i] are the requests of the
  // plan's sends[i] and receives[i].
  StepPlan step_plan;  // refilled each step, its vectors reused
  std::vector<RequestPtr> sent;
  std::vector<RequestPtr> received;
  // --trace: each step, and each piece's send, receive and reduction, as this rank saw them.
  const bool tracing = static_cast<bool>(options.step_trace);
  Clock::time_point step_start;
  Clock::time_point posted;
  for (std::size_t step = 0; step < plan.program.steps.size(); ++step) {
    const int tag = static_cast<int>(step % step_tag_limit);
    if (tracing) step_start = Clock::now();
    auto trace = [&](SpanKind kind, const PlannedPiece* planned, Clock::time_point start) {
      options.step_trace({kind, static_cast<int>(step), planned != nullptr ? planned->peer : -1,
                          planned != nullptr ? static_cast<std::int64_t>(bytes(planned->piece.count)) : 0, start,
                          Clock::now()});
    };
    if (options.fault != nullptr) options.fault->at_step(comm, plan, step, total_bytes);
    // A timed-out wait says where in the schedule this rank was.
    auto wait_for = [&](RequestPtr& request, const PlannedPiece& planned, std::string_view what) {
      try {
        request->wait(Clock::now() + options.timeout, what);
      } catch (const TimeoutError& error) {
        throw TimeoutError(fmt::format("{} [{} {}, step {} of {}, peer rank {}, after --timeout {} s]", error.what(),
                                       plan.algorithm, name_of(plan.collective), step, plan.program.steps.size(),
                                       planned.peer, static_cast<double>(options.timeout.count()) / 1000.0));
      }
    };
    // Where each piece is read from and lands (step_plan.hpp), the output first completed where
    // a piece read from it still lay partly in the input.
    plan_step(plan.program.steps[step], cut, in_output, combines_on_receive, step_plan);
    for (const ElementCoverage::Range& gap : step_plan.completions)
      data.copy(output + bytes(gap.first), input + bytes(gap.first), bytes(gap.last - gap.first));
    sent.clear();  // the last step's requests, all complete
    received.clear();
    const std::size_t scratch_bytes = bytes(step_plan.scratch_elements);
    if (!scratch_ || scratch_owner_ != &comm || scratch_on_device_ != output_on_device ||
        scratch_->bytes().size() < scratch_bytes) {
      scratch_.reset();
      scratch_ = data.allocate_scratch(scratch_bytes, output);
      scratch_owner_ = &comm;
      scratch_on_device_ = output_on_device;
    }
    std::byte* const scratch = scratch_->bytes().data();
    if (tracing) posted = Clock::now();
    data.begin_step();
    for (const PlannedPiece& receive : step_plan.receives) {
      const std::span<std::byte> target{receive.to_scratch ? scratch + bytes(receive.scratch_first)
                                                           : output + bytes(receive.piece.first),
                                        bytes(receive.piece.count)};
      if (!receive.to_scratch && receive.kind == OpKind::recv_reduce)  // so combines_on_receive said yes
        received.push_back(combining->post_recv_reduce(target, source_of(receive) + bytes(receive.piece.first),
                                                       receive.peer, tag, type, op));
      else
        received.push_back(comm.post_recv(target, receive.peer, tag));
    }
    for (const PlannedPiece& planned : step_plan.sends)
      sent.push_back(comm.post_send({source_of(planned) + bytes(planned.piece.first), bytes(planned.piece.count)},
                                    planned.peer, tag));
    data.end_step();
    for (std::size_t r = 0; r < step_plan.receives.size(); ++r) {
      const PlannedPiece& receive = step_plan.receives[r];
      wait_for(received[r], receive, name_of(receive.kind));
      if (tracing) trace(SpanKind::recv, &receive, posted);
      const std::int64_t first = receive.piece.first;
      const std::int64_t last = first + receive.piece.count;
      if (!receive.to_scratch) continue;
      // The output piece may be written only once this step's sends that read it have completed.
      for (std::size_t s = 0; s < step_plan.sends.size(); ++s) {
        const PlannedPiece& planned = step_plan.sends[s];
        if (sent[s] && source_of(planned) == output && planned.piece.overlaps(receive.piece)) {
          wait_for(sent[s], planned, "send");
          if (tracing) trace(SpanKind::send, &planned, posted);
          sent[s].reset();
        }
      }
      const Clock::time_point combine_start = tracing ? Clock::now() : Clock::time_point{};
      std::byte* target = output + bytes(first);
      const std::byte* incoming = scratch + bytes(receive.scratch_first);
      const auto elements = static_cast<std::size_t>(receive.piece.count);
      if (receive.kind == OpKind::recv) {
        data.copy(target, incoming, bytes(receive.piece.count));
      } else if (!in_output.touches(first, last)) {
        data.reduce_to(target, input + bytes(first), incoming, elements, type, op);
      } else {
        complete_in_output(first, last);  // an earlier receive of this step wrote part of it
        data.reduce_into(target, incoming, elements, type, op);
      }
      if (tracing && receive.kind == OpKind::recv_reduce) trace(SpanKind::reduce, &receive, combine_start);
      in_output.add(first, last);
    }
    for (const PlannedPiece& receive : step_plan.receives)  // scratch receives were recorded as they were combined
      if (!receive.to_scratch) in_output.add(receive.piece.first, receive.piece.last());
    for (std::size_t s = 0; s < step_plan.sends.size(); ++s)
      if (sent[s]) {
        wait_for(sent[s], step_plan.sends[s], "send");
        if (tracing) trace(SpanKind::send, &step_plan.sends[s], posted);
      }
    if (tracing) trace(SpanKind::step, nullptr, step_start);
  }
  complete_in_output(0, count);

  if (op == ReduceOp::avg && (plan.collective == Collective::allreduce || plan.collective == Collective::reduce_scatter)) {
    ElementRange result{0, count};
    if (plan.collective == Collective::reduce_scatter) {
      const ChunkRange block = block_of(plan.rank, plan.nranks, plan.nchunks);
      result = {chunk_start(block.begin, count, plan.nchunks), chunk_start(block.end, count, plan.nchunks)};
    }
    data.divide(output + bytes(result.first), static_cast<std::size_t>(result.size()), type, plan.nranks);
  }
}

std::vector<std::string> allreduce_implementations() {
  std::vector<std::string> names;
  for (const AlgorithmInfo& info : algorithms())
    if (supports(info, Collective::allreduce)) names.emplace_back(info.name);
  names.emplace_back(mpi_native);
  return names;
}

PreparedCollective::PreparedCollective(std::string_view algorithm, Collective collective,
                                       const AlgorithmOptions& options, int nranks, int rank)
    : algorithm_(algorithm), native_(is_native_allreduce(algorithm)) {
  if (native_) {
    if (collective != Collective::allreduce)
      throw std::invalid_argument(fmt::format("'{}' only provides allreduce, not {}", algorithm, name_of(collective)));
    plan_.algorithm = algorithm_;
    plan_.nranks = nranks;
    plan_.rank = rank;
    return;
  }
  const Schedule schedule = make_schedule(algorithm, collective, nranks, options);
  plan_ = RankPlan{schedule.algorithm, schedule.collective, schedule.nranks, rank, schedule.root, schedule.nchunks,
                   schedule.program(rank)};
  check_own_program(plan_);
}

void PreparedCollective::run(Communicator& comm, const void* send, void* recv, std::int64_t count, DataType type,
                             ReduceOp op, const ExecuteOptions& options) {
  if (!native_) {
    executor_.run(plan_, comm, send, recv, count, type, op, options);
    return;
  }
  NativeAllreduce* const native = comm.native_allreduce();
  if (native == nullptr || native_allreduce_of(comm.backend_name()) != algorithm_)
    throw std::invalid_argument(fmt::format("'{}' needs the {} backend; the {} backend has {}", algorithm_,
                                            native_allreduce_owner(algorithm_)->name, comm.backend_name(),
                                            native != nullptr
                                                ? fmt::format("'{}' instead", native_allreduce_of(comm.backend_name()))
                                                : std::string("no native all-reduce")));
  const std::size_t total_bytes = checked_byte_count(count, type);
  if (options.check_consistency)
    check_ranks_agree(comm,
                      fmt::format("algorithm={} collective=allreduce ranks={} count={} type={} op={}", algorithm_,
                                  comm.size(), count, name_of(type), name_of(op)),
                      options.timeout);
  if (total_bytes == 0) return;
  if (options.fault != nullptr) options.fault->at_step(comm, plan_, 0, total_bytes);  // one call: step 0
  const Clock::time_point start = Clock::now();
  native->allreduce(send, recv, static_cast<std::size_t>(count), type, op, start + options.timeout);
  if (options.step_trace) options.step_trace({SpanKind::step, 0, -1, 0, start, Clock::now()});  // one opaque step
}

}  // namespace ringlab
