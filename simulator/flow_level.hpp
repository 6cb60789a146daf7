// The flow-level model: a discrete-event simulation of a schedule in which every transfer is a
// flow on its route and flows that cross the same link (or limited switch) share it max-min
// fairly (docs/simulator.md). Steps:
//   1. a rank enters step k when it has finished step k-1 (time 0 for step 0);
//   2. a transfer s -> d of step k (matched by d's receive op) starts when both s and d have
//      entered step k. It is cut into pieces exactly as the executor cuts it (--segment-bytes,
//      each element range of a wrapping chunk range apart); the pieces of one transfer go one
//      after another on one flow, as over one channel;
//   3. the rates of the flows in the network are max-min fair over the links and limited
//      switches they cross (max_min.hpp), recomputed, for the flows that share resources with
//      them, whenever a flow starts or ends;
//   4. a piece arrives its route's latency after its last byte left (one latency per hop);
//   5. the receiver reduces the pieces of recv_reduce ops one at a time in the executor's order
//      (ops in order, pieces in order), each gamma x its bytes once it has arrived and the
//      previous one is reduced, so reducing one piece overlaps receiving the next; where the
//      topology prices the operand forms apart (in_place_gamma), a piece whose left operand the
//      executor's step plan finds in the output is reduced in place at the in-place gamma;
//   6. a rank's step ends when its sends have arrived and its receives are reduced;
//   7. with Topology::cpu_sharing, a rank is busy while it has a flow (sent or received); the
//      links at a busy rank's endpoint carry their written bandwidth x its share of its core now,
//      1 / (busy + waiting_rank_cost x waiting ranks of its CPU), over the written share, and a
//      reduction it starts costs gamma divided by that; a change of a CPU's busy ranks re-solves
//      the flows on its ranks' links.
// When no two flows ever share a resource and transfers are whole (segment 0) this is exactly
// the closed form. Where the schedule, network and routes look alike from every rank of an orbit
// (flow_orbits.hpp), one rank an orbit is simulated, with the same result up to rounding. Deterministic: events at the same time are handled in the order they were
// created. A topology with footprint curves is simulated as it is at the call's footprint, as in
// the closed form (closed_form.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "simulator/closed_form.hpp"
#include "collectives/datatype.hpp"
#include "simulator/job_footprint.hpp"
#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

class FlowRoutes;
struct OrbitsMemo;
struct RankOrbits;

struct FlowLevelOptions {
  // Pieces of at most this many bytes (0: each element range of an op whole), as
  // ExecuteOptions::segment_bytes.
  std::int64_t segment_bytes = 0;
  // Record a timeline (rank steps and transfers) for --trace, up to max_trace_spans spans.
  bool record_trace = false;
  std::size_t max_trace_spans = 1'000'000;
  // Simulate one rank an orbit where flow_orbits.hpp's conditions hold (never with a trace);
  // false: every rank, as tests do to compare the two.
  bool use_rank_orbits = true;
  // Re-solve max-min rates locally after flows start or end (max_min_update.hpp), where rank
  // orbits, CPU sharing and a trace are off; false: each changed group whole, as tests compare.
  bool local_max_min = true;
  // Called at most once every progress_events events handled, with the share of the simulated
  // ranks' steps finished so far (0 to 1): `ringlab simulate`'s progress line within one prediction.
  std::function<void(double)> progress = {};
};

inline constexpr std::int64_t progress_events = std::int64_t{1} << 16;

// What one link direction or limited switch carried during a prediction.
struct ResourceLoad {
  bool is_switch = false;
  NodeId from = 0;  // the switch itself when is_switch
  NodeId to = 0;
  double capacity = 0;      // bytes/s
  double bytes = 0;         // carried
  double busy_seconds = 0;  // time with at least one flow on it
  double utilisation = 0;   // bytes / (capacity x predicted seconds)
};

// A span of the timeline: a rank's step (peer == -1) or one transfer (rank = the sender).
struct TraceSpan {
  int rank = 0;
  int step = 0;
  int peer = -1;
  double bytes = 0;
  double start_seconds = 0;
  double end_seconds = 0;
};

// With record_trace: the rate a link direction or limited switch carries from `seconds` on (the
// sum of its flows' rates), one sample each time it changes; a counter track per resource.
struct LoadSample {
  bool is_switch = false;
  NodeId from = 0;  // the switch itself when is_switch
  NodeId to = 0;
  double seconds = 0;
  double bytes_per_second = 0;
};

struct FlowPrediction {
  Prediction prediction;
  std::vector<ResourceLoad> loads;  // resources that carried bytes, links first, in id order
  std::vector<TraceSpan> trace;     // when recorded
  bool trace_truncated = false;     // more spans than max_trace_spans
  std::vector<LoadSample> load_samples;  // when recorded, in time order (also capped by max_trace_spans)
  std::int64_t transfers = 0;       // flows simulated
  std::int64_t events = 0;          // events handled
  std::int64_t local_solves = 0;    // rate updates solved locally (max_min_update.hpp)
  std::int64_t declined_local = 0;  // ... and those that fell back to solving the groups whole
};

// Keeps a reference to the topology, which must outlive it, and its routes between calls. Not
// thread-safe.
class FlowLevelModel {
 public:
  // Throws std::invalid_argument for a negative or non-finite gamma or a negative segment size.
  FlowLevelModel(const Topology& topology, double gamma_seconds_per_byte = default_gamma_seconds_per_byte,
                 FlowLevelOptions options = {});
  ~FlowLevelModel();
  FlowLevelModel(FlowLevelModel&&) noexcept;
  FlowLevelModel& operator=(FlowLevelModel&&) = delete;

  // The time of one collective call on `count` elements of `type`; rank r is endpoint r. Refuses
  // what ClosedFormModel::predict refuses, and throws std::invalid_argument naming a stuck rank,
  // its step and the peer it waits for when the schedule's sends and receives do not match.
  // The placement matters only on a topology with footprint curves (it sets the footprint).
  FlowPrediction predict(const Schedule& schedule, std::int64_t count, DataType type,
                         Placement placement = Placement::out_of_place);

  // How many ranks each rank predict simulates stands for: the orbit size where the rank orbits
  // of flow_orbits.hpp apply (ring on ring:N: N), else 1. What a caller divides its flow count by.
  // The orbits are kept for a predict of the same schedule (computed once for both).
  int ranks_per_simulated_rank(const Schedule& schedule, std::int64_t count);

  double gamma_seconds_per_byte() const { return gamma_seconds_per_byte_; }
  const FlowLevelOptions& options() const { return options_; }

 private:
  // The model of the topology at one footprint, kept for the next call at the same footprint.
  FlowLevelModel& at_footprint(double footprint_bytes);
  // The rank orbits predict may simulate by (null: every rank), from a memo when the schedule's
  // template, ranks, chunks and count's divisibility are those of an earlier call's.
  const RankOrbits* orbits_for(const Schedule& schedule, std::int64_t count);

  const Topology& topology_;
  double gamma_seconds_per_byte_;
  FlowLevelOptions options_;
  std::unique_ptr<FlowRoutes> routes_;  // kept between calls
  double cached_footprint_bytes_ = -1;
  std::unique_ptr<Topology> footprint_topology_;
  std::unique_ptr<FlowLevelModel> footprint_model_;
  std::vector<OrbitsMemo> orbits_memos_;  // one per circulant schedule asked about, up to 64
};

}  // namespace ringlab::simulator
