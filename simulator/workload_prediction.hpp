// `ringlab simulate --workload`: one training iteration (an IterationPlan of
// workload/workload_plan.hpp, the plan `ringlab replay` executes) priced on a topology.
// Steps:
//   1. each compute phase costs its profile time;
//   2. each collective phase costs one call of the algorithm's schedule on `count` float32
//      elements (training::gradient_type), priced by the flow-level or the closed-form model on
//      ranks 0..N-1 of the topology with the gamma given, float32/sum's (type_op_gamma.hpp)
//      (calls of the same collective and count are priced once);
//   3. the phases run one after another, as the executor's blocking collectives run them: the
//      iteration is the sum. Every rank runs the same plan (the head is priced at its largest
//      slice), so the prediction has no idle time.
// The layer list lives in library ringlab_workload (workload/, no OpenBLAS),
// so the simulator does not depend on the training harness.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "simulator/predictor.hpp"
#include "collectives/schedule.hpp"
#include "topology/topology.hpp"
#include "workload/workload_plan.hpp"

namespace ringlab::simulator {

struct IterationPrediction {
  double iteration_seconds = 0;
  double compute_seconds = 0;
  double communication_seconds = 0;
  std::vector<double> phase_seconds;  // per phase of the plan
};

// True when `algorithm` has the schedules `mode` needs (hybrid: reduce-scatter and all-gather).
bool algorithm_serves(const std::string& algorithm, training::ReplayMode mode);

class WorkloadPredictor {
 public:
  // model: "flow-level" (segments of segment_bytes) or "closed-form" (make_model). Keeps a
  // reference to the topology, which must outlive it. Throws std::invalid_argument for an unknown
  // model.
  WorkloadPredictor(const Topology& topology, const std::string& model, double gamma_seconds_per_byte,
                    std::int64_t segment_bytes);
  // Throws std::invalid_argument when the plan has more ranks than the topology has endpoints or
  // the algorithm lacks a collective the plan uses.
  IterationPrediction predict(const training::IterationPlan& plan, const std::string& algorithm);

 private:
  double collective_seconds(const std::string& algorithm, Collective collective, int nranks, std::int64_t count);
  const Topology& topology_;
  Predictor model_;
  std::map<std::tuple<std::string, Collective, int>, Schedule> schedules_;
  std::map<std::tuple<std::string, Collective, int, std::int64_t>, double> prices_;
};

}  // namespace ringlab::simulator
