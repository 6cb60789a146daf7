// `ringlab tune`'s search: every candidate (algorithm, segment size) priced by one model at every
// (rank count, size) point, the fastest kept, adjacent sizes with the same choice merged into one
// rule of a SelectionTable (collectives/selection_table.hpp).
//
// A point's time is out of place plus in place (bench times both and `--algo auto` runs one
// choice for both); the runner-up is the fastest candidate of ANOTHER algorithm, and the margin
// its time over the chosen one's, minus 1. Rank counts below the topology's endpoint count are
// priced on its first endpoints, as `ringlab compare` prices a smaller report.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "collectives/datatype.hpp"
#include "collectives/selection_table.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

struct TuneRequest {
  std::string model = "flow-level";  // simulator::models()
  double gamma_seconds_per_byte = 0;  // the reduction's gamma for `type`/`op` (TypeOpPricing)
  std::vector<int> rank_counts;       // each in [1, topology endpoints]
  std::vector<std::int64_t> sizes;    // bytes, ascending, multiples of the element size
  DataType type = DataType::float32;
  ReduceOp op = ReduceOp::sum;
  std::vector<std::string> algorithms;            // registered names with an all-reduce schedule
  std::vector<std::int64_t> segment_candidates;   // flow level: each tried; closed form: the first only
  AlgorithmOptions algorithm_options;
};

// Called after each (rank count, size) point with the points done and the total.
using TuneProgress = std::function<void(std::size_t done, std::size_t total)>;

// Throws std::invalid_argument on an empty or bad request (naming the field), and as the models do.
SelectionTable tune_allreduce(const Topology& topology, const TuneRequest& request, const TuneProgress& progress = {});

}  // namespace ringlab::simulator
