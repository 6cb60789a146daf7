#include "simulator/flow_work.hpp"

#include <algorithm>
#include <cmath>

namespace ringlab::simulator {

double flow_level_flows(const Schedule& schedule, std::int64_t count, DataType type, std::int64_t segment_bytes) {
  const auto element = static_cast<std::int64_t>(element_size(type));
  const double piece_elements =
      segment_bytes <= 0 ? 0.0 : static_cast<double>(std::max<std::int64_t>(1, segment_bytes / element));
  // A circulant template stands for every rank (its ranges shift; their sizes differ by at most
  // one element's rounding, so the template's own sizes serve for all).
  const double copies = schedule.circulant ? static_cast<double>(schedule.nranks) : 1.0;
  const std::int64_t nchunks = std::max<std::int64_t>(schedule.nchunks, 1);
  double flows = 0;
  for (const RankProgram& program : schedule.programs)
    for (const Step& step : program.steps)
      for (const Op& op : step) {
        if (op.kind != OpKind::send) continue;
        const ChunkRange range = op.chunks;
        const bool valid = range.begin >= 0 && range.begin < nchunks && range.end > range.begin &&
                           range.end <= range.begin + nchunks;  // else the model refuses it anyway
        const double elements = valid ? static_cast<double>(element_count(range, count, nchunks)) : 0.0;
        const double pieces = piece_elements > 0 ? std::max(1.0, std::ceil(elements / piece_elements)) : 1.0;
        flows += copies * pieces;
      }
  return flows;
}

}  // namespace ringlab::simulator
