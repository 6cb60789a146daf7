#include "simulator/job_footprint.hpp"

#include <algorithm>

#include "simulator/schedule_walk.hpp"

namespace ringlab::simulator {

double job_footprint_bytes(const Schedule& schedule, std::int64_t count, DataType type, Placement placement) {
  const auto element_bytes = static_cast<double>(element_size(type));
  auto elements_of = [&](const ChunkRange& chunks) {
    const std::int64_t nchunks = schedule.nchunks;
    if (chunks.end <= nchunks) return chunk_start(chunks.end, count, nchunks) - chunk_start(chunks.begin, count, nchunks);
    return count - chunk_start(chunks.begin, count, nchunks) + chunk_start(chunks.end - nchunks, count, nchunks);
  };
  const int walked_ranks = schedule.circulant ? 1 : schedule.nranks;
  const double buffers = placement == Placement::in_place ? 1 : 2;
  double total = 0;
  for (int rank = 0; rank < walked_ranks; ++rank) {
    double scratch = 0;
    for (const Step& step : program_of(schedule, rank).steps) {
      double received = 0;
      for (const Op& op : step)
        if (op.kind != OpKind::send) received += static_cast<double>(elements_of(op.chunks)) * element_bytes;
      scratch = std::max(scratch, received);
    }
    total += buffers * static_cast<double>(count) * element_bytes + scratch;
  }
  return schedule.circulant ? total * schedule.nranks : total;
}

}  // namespace ringlab::simulator
