#include "collectives/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace ringlab {

std::string_view name_of(Collective collective) {
  switch (collective) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::allgather: return "allgather";
    case Collective::broadcast: return "broadcast";
  }
  return "unknown";
}

std::string_view name_of(OpKind kind) {
  switch (kind) {
    case OpKind::send: return "send";
    case OpKind::recv: return "recv";
    case OpKind::recv_reduce: return "recv_reduce";
  }
  return "unknown";
}

Collective parse_collective(std::string_view name) {
  for (Collective collective : all_collectives)
    if (name_of(collective) == name) return collective;
  throw std::invalid_argument(fmt::format(
      "unknown collective '{}'; valid collectives: allreduce, reduce_scatter, allgather, broadcast", name));
}

OpKind parse_op_kind(std::string_view name) {
  for (OpKind kind : {OpKind::send, OpKind::recv, OpKind::recv_reduce})
    if (name_of(kind) == name) return kind;
  throw std::invalid_argument(fmt::format("unknown op '{}'; valid ops: send, recv, recv_reduce", name));
}

std::vector<ElementRange> element_ranges(ChunkRange chunks, std::int64_t count, std::int64_t nchunks) {
  if (chunks.end <= nchunks)
    return {{chunk_start(chunks.begin, count, nchunks), chunk_start(chunks.end, count, nchunks)}};
  return {{chunk_start(chunks.begin, count, nchunks), count},
          {0, chunk_start(chunks.end - nchunks, count, nchunks)}};
}

void append_pieces(std::vector<Piece>& pieces, ChunkRange chunks, std::int64_t count, std::int64_t nchunks,
                   std::int64_t piece_elements) {
  for (const ElementRange& range : element_ranges(chunks, count, nchunks))
    for (std::int64_t first = range.first; first < range.last;) {
      const std::int64_t elements = std::min(piece_elements, range.last - first);  // no overflow at INT64_MAX
      pieces.push_back({first, elements});
      first += elements;
    }
}

ChunkRange block_of(int rank, int nranks, std::int64_t nchunks) {
  const std::int64_t per_rank = nchunks / nranks;
  return {rank * per_rank, (rank + 1) * per_rank};
}

int Schedule::num_steps() const {
  std::size_t steps = 0;
  for (const RankProgram& program : programs) steps = std::max(steps, program.steps.size());
  return static_cast<int>(steps);
}

RankProgram Schedule::program(int rank) const {
  if (rank < 0 || rank >= nranks)
    throw std::out_of_range(fmt::format("rank {} is outside the schedule's {} ranks", rank, nranks));
  if (!circulant) return programs.at(static_cast<std::size_t>(rank));
  RankProgram resolved = programs.at(0);
  for (Step& step : resolved.steps)
    for (Op& op : step) op = resolve(op, rank);
  return resolved;
}

Op Schedule::resolve(const Op& op, int rank) const {
  if (!circulant) return op;
  const std::int64_t chunk_shift = rank * (nchunks / nranks);
  Op resolved = op;
  resolved.peer = (op.peer + rank) % nranks;
  resolved.chunks.begin = (op.chunks.begin + chunk_shift) % nchunks;
  resolved.chunks.end = resolved.chunks.begin + op.chunks.size();
  return resolved;
}

Schedule make_circulant(std::string algorithm, Collective collective, int nranks, std::int64_t nchunks,
                        RankProgram relative_program) {
  Schedule schedule;
  schedule.algorithm = std::move(algorithm);
  schedule.collective = collective;
  schedule.nranks = nranks;
  schedule.nchunks = nchunks;
  schedule.circulant = true;
  schedule.programs.push_back(std::move(relative_program));
  return schedule;
}

}  // namespace ringlab
