#include "simulator/tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "simulator/finite_prediction.hpp"
#include "simulator/predictor.hpp"

namespace ringlab::simulator {

namespace {

void check_request(const Topology& topology, const TuneRequest& request) {
  if (request.rank_counts.empty()) throw std::invalid_argument("tune: no rank counts to tune for (--ranks)");
  for (const int nranks : request.rank_counts)
    if (nranks < 1 || nranks > topology.num_endpoints())
      throw std::invalid_argument(fmt::format(
          "tune: {} ranks do not fit topology '{}', which has {} endpoints; give --ranks between 1 and {}, or a "
          "larger topology",
          nranks, topology.name(), topology.num_endpoints(), topology.num_endpoints()));
  if (request.sizes.empty()) throw std::invalid_argument("tune: no sizes to tune for (-b/-e)");
  if (request.algorithms.empty()) throw std::invalid_argument("tune: no algorithms to choose from (--algo)");
  if (request.segment_candidates.empty()) throw std::invalid_argument("tune: no segment sizes to try (--segment-bytes)");
}

struct Candidate {
  std::size_t algorithm = 0;
  std::int64_t segment_bytes = 0;
  const Predictor* model = nullptr;
};

}  // namespace

SelectionTable tune_allreduce(const Topology& topology, const TuneRequest& request, const TuneProgress& progress) {
  check_request(topology, request);
  const ModelInfo& info = find_model(request.model);
  // The closed form sends transfers whole: one candidate segment size is all it can tell apart.
  std::vector<std::int64_t> segments = request.segment_candidates;
  if (!info.cuts_segments) segments.resize(1);
  std::vector<Predictor> models;
  models.reserve(segments.size());
  for (const std::int64_t segment : segments)
    models.push_back(make_model(info.name, topology, request.gamma_seconds_per_byte, info.cuts_segments ? segment : 0));

  SelectionTable table;
  const std::size_t element = element_size(request.type);
  const std::size_t total = request.rank_counts.size() * request.sizes.size();
  std::size_t done = 0;
  for (const int nranks : request.rank_counts) {
    std::vector<Schedule> schedules;
    for (const std::string& name : request.algorithms)
      schedules.push_back(make_schedule(name, Collective::allreduce, nranks, request.algorithm_options));
    std::vector<Candidate> candidates;
    for (std::size_t a = 0; a < schedules.size(); ++a)
      for (std::size_t s = 0; s < segments.size(); ++s) candidates.push_back({a, segments[s], &models[s]});
    for (const std::int64_t bytes : request.sizes) {
      const std::int64_t count = bytes / static_cast<std::int64_t>(element);
      std::vector<double> seconds(candidates.size());
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const Candidate& candidate = candidates[c];
        const Schedule& schedule = schedules[candidate.algorithm];
        double both = 0;
        for (const Placement placement : {Placement::out_of_place, Placement::in_place})
          both += finite_prediction(
              candidate.model->seconds(schedule, count, request.type, request.op, candidate.segment_bytes, placement),
              fmt::format("{} at {} B on {} ranks, {}", request.algorithms[candidate.algorithm], bytes, nranks,
                          name_of(placement)));
        seconds[c] = both;
      }
      const std::size_t best = static_cast<std::size_t>(std::min_element(seconds.begin(), seconds.end()) - seconds.begin());
      double runner_up_seconds = std::numeric_limits<double>::infinity();
      std::size_t runner_up = best;
      for (std::size_t c = 0; c < candidates.size(); ++c)
        if (candidates[c].algorithm != candidates[best].algorithm && seconds[c] < runner_up_seconds) {
          runner_up_seconds = seconds[c];
          runner_up = c;
        }
      SelectionRule rule;
      rule.collective = Collective::allreduce;
      rule.nranks = nranks;
      rule.min_bytes = bytes;
      rule.algorithm = request.algorithms[candidates[best].algorithm];
      rule.segment_bytes = candidates[best].segment_bytes;
      rule.predicted_seconds = seconds[best] / 2;  // the mean of the two placements
      if (runner_up != best) {
        rule.runner_up = request.algorithms[candidates[runner_up].algorithm];
        rule.margin = seconds[best] > 0 ? runner_up_seconds / seconds[best] - 1 : 0;
      }
      table.rules.push_back(std::move(rule));
      if (progress) progress(++done, total);
    }
  }
  table.rules = merge_rules(std::move(table.rules));
  return table;
}

}  // namespace ringlab::simulator
