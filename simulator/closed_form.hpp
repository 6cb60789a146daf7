// The closed-form model: a schedule priced step by step with alpha-beta-gamma along each route,
// without contention between different ranks' transfers (docs/simulator.md).
//
// Bytes: an op on chunk range R moves element_count(R, count, nchunks) elements of the data type,
// exactly the elements the executor sends. For one step of one rank:
// - its sends share its outgoing port and its receives share its incoming port (full duplex:
//   the two directions do not share): out(s) = sum over s's sends of bytes * seconds_per_byte of
//   the route, in(d) likewise over d's receives;
// - a transfer s -> d starts when both s and d have finished their previous step and ends
//   latency(route) + max(out(s), in(d)) later;
// - the rank's step ends when all its transfers have ended, plus gamma * the bytes it reduces
//   (recv_reduce), which is not overlapped with the transfers.
// That is the step clock's rule (collectives/step_clock.hpp), which every path of the model
// prices by. A rank with no op in a step keeps its time. The prediction is the latest rank's
// finish (when every rank provably runs alike, rank 0's, computed alone). On a uniform network
// (every route alike) this gives the alpha-beta-gamma cost formulas, alpha = route latency and
// beta = 1 / route bandwidth: a server's N-1 incoming messages cost (N-1) n beta (incast), a
// send and a receive in the same step cost max, not sum.
// A topology with footprint curves (a calibrated host-shm) is priced as it is at the call's
// footprint (job_footprint.hpp, which depends on the placement): Topology::at_footprint, then the
// steps above; gamma follows the topology's gamma curve unless the model was given a gamma other
// than the topology's own.
// Where the topology prices the operand forms apart (in_place_gamma differs from gamma), a
// reduction in place costs the in-place gamma: in an in-place call every reduction is (the steps
// above at that gamma); out of place, the walk prices each rank's step with the executor's step
// plan (scratch_receives.hpp: a reducing receive whose elements the rank already wrote to its
// output is reduced in place), none of the shortcuts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "simulator/compact_schedule.hpp"
#include "collectives/datatype.hpp"
#include "simulator/job_footprint.hpp"
#include "topology/physical_ranges.hpp"
#include "simulator/route_costs.hpp"
#include "simulator/scratch_receives.hpp"
#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

class OpBytes;  // closed_form_ops.hpp

// A round figure for one CPU core summing float32 arrays (about 10 GB/s of reduced bytes); pass
// a measured figure (ringlab calibrate, later) for real predictions.
inline constexpr double default_gamma_seconds_per_byte = 1e-10;

// The gamma to price with: the one given (--gamma), else the topology's (a calibrated topology
// carries one), else default_gamma_seconds_per_byte.
// A given gamma must lie in the topology format's range (physical_ranges.hpp), or predictions could
// overflow to inf.
inline double choose_gamma(const Topology& topology, std::optional<double> given) {
  if (given) return io::check_number(*given, "--gamma", ranges::gamma_seconds_per_byte);
  return topology.gamma_seconds_per_byte().value_or(default_gamma_seconds_per_byte);
}

// A schedule made ready to be priced many times (at many sizes): an explicit schedule's ops
// packed step by step (compact_schedule.hpp). Keeps a reference to the schedule, which must
// outlive it. Throws like ClosedFormModel::predict for an op whose peer or chunks do not exist.
class PreparedSchedule {
 public:
  explicit PreparedSchedule(const Schedule& schedule) : PreparedSchedule(schedule, CompactSchedule::of(schedule)) {}
  // Not packed: for a single call, which the packing (one walk of the schedule) would not repay.
  static PreparedSchedule unpacked(const Schedule& schedule) { return PreparedSchedule(schedule, std::nullopt); }
  const Schedule& schedule() const { return schedule_; }
  const CompactSchedule* compact() const { return compact_ ? &*compact_ : nullptr; }
  // The schedule the shortcuts price: a circulant one with its ops joined (joined_transfers,
  // closed_form_ops.hpp), found once for every size, else the schedule itself.
  const Schedule& priced() const { return joined_ ? *joined_ : schedule_; }

 private:
  PreparedSchedule(const Schedule& schedule, std::optional<CompactSchedule> compact);  // closed_form.cpp

  const Schedule& schedule_;
  std::optional<CompactSchedule> compact_;
  std::optional<Schedule> joined_;
};

struct Prediction {
  double seconds = 0;                        // the latest rank's finish
  std::vector<double> rank_finish_seconds;   // per rank
  int steps = 0;
  int steps_extrapolated = 0;                // closed form: steps of a settled run added in one go, not walked
  // closed form: every rank runs alike (a circulant schedule with equal chunks where its offsets
  // cost alike from every rank, an explicit one found so op by op, or a prepared one alike in shape
  // on one switch), so rank 0's steps were priced
  bool ranks_alike = false;
};

// Keeps route costs between calls, so a sweep over sizes and algorithms looks each route up once.
// Holds a reference to the topology, which must outlive it. Not thread-safe.
class ClosedFormModel {
 public:
  // Throws std::invalid_argument for a negative or non-finite gamma.
  explicit ClosedFormModel(const Topology& topology, double gamma_seconds_per_byte = default_gamma_seconds_per_byte);

  // The time of one collective call on `count` elements of `type`. Rank r of the schedule is
  // endpoint r of the topology. Throws std::invalid_argument when the schedule has more ranks
  // than the topology has endpoints, when count is negative, or when an op names a peer or a
  // chunk range that does not exist; the message names the rank, step and op. Whether sends and
  // receives match is not checked (that needs the verifier's O(ranks x chunks) state): prove a
  // schedule that did not come from the registry with `ringlab verify` first.
  // The placement matters only on a topology with footprint curves (it sets the footprint).
  Prediction predict(const Schedule& schedule, std::int64_t count, DataType type,
                     Placement placement = Placement::out_of_place) {
    return predict(PreparedSchedule::unpacked(schedule), count, type, placement);
  }
  // The same for a schedule prepared once: what a sweep over sizes calls.
  Prediction predict(const PreparedSchedule& prepared, std::int64_t count, DataType type,
                     Placement placement = Placement::out_of_place);

  double gamma_seconds_per_byte() const { return gamma_seconds_per_byte_; }

 private:
  // The shortcuts, each in its own file with the condition under which it equals the walk;
  // nothing (std::nullopt) where that condition does not hold.
  std::optional<Prediction> predict_symmetric(const Schedule& schedule, std::int64_t count, DataType type);  // closed_form_symmetric.cpp
  std::optional<Prediction> predict_circulant(const Schedule& schedule, std::int64_t count, DataType type);  // closed_form_circulant.cpp
  std::optional<Prediction> predict_periodic(const Schedule& schedule, std::int64_t count, DataType type);  // closed_form_periodic.cpp
  Prediction predict_compact(const Schedule& schedule, const CompactSchedule& compact, std::int64_t count, DataType type);  // closed_form_compact.cpp
  // An out-of-place call's reductions by form: the step plans that say which run in place, and
  // what those cost.
  struct ReductionForms {
    ScratchReceives plans;
    double in_place_gamma_seconds_per_byte = 0;
    double bytes_per_element = 0;
  };
  // The walk every shortcut equals (closed_form_walk.cpp), in windows of steps; with `forms`,
  // each rank's in-place reductions at their own gamma.
  Prediction predict_walk(const Schedule& schedule, const OpBytes& bytes_of, ReductionForms* forms = nullptr);

  // What pass 1 of the walk records for pass 2, one window of steps at a time (at most about
  // 128 MiB), kept between calls so that a sweep does not fault in fresh pages on every call.
  struct PortLoad {  // one rank in one step
    double outgoing_seconds = 0;  // serialisation time of its sends on its outgoing port
    double incoming_seconds = 0;  // and of its receives on its incoming port
    double reduced_bytes = 0;     // what it reduces (recv_reduce)
    double in_place_bytes = 0;    // of which in place, where the walk prices the forms apart
  };
  struct Transfer {  // one op: its peer, direction and route latency
    int peer = 0;
    bool sending = false;
    double latency_seconds = 0;
  };
  struct Scratch {
    std::vector<std::vector<PortLoad>> loads;            // [step in window][rank]
    std::vector<std::vector<Transfer>> transfers;        // [step in window], in rank order
    std::vector<std::vector<std::uint32_t>> rank_start;  // [step in window][rank]: the rank's first transfer
    std::vector<double> latencies;                       // predict_compact: one step's ops' route latencies
  };

  // The model of the topology at one footprint, kept for the next call at the same footprint.
  ClosedFormModel& at_footprint(double footprint_bytes);

  RouteCosts route_costs_;
  double gamma_seconds_per_byte_;
  Scratch scratch_;
  double cached_footprint_bytes_ = -1;
  std::unique_ptr<Topology> footprint_topology_;
  std::unique_ptr<ClosedFormModel> footprint_model_;
  std::unique_ptr<ClosedFormModel> in_place_model_;  // every reduction at the in-place gamma
};

// How many ranks apart a circulant schedule's ranks carry the same loads at `count` elements.
// chunk_start(c) = c q + floor(c r / nchunks) (r = count mod nchunks), so chunk sizes repeat every
// nchunks / gcd(nchunks, r) chunks; rank r's chunks lie chunk_shift = nchunks / nranks further on
// than rank r - 1's, so loads repeat every that / gcd(that, chunk_shift) ranks. On a network where
// each offset costs alike from every rank, ranks that far apart run alike step for step (the same
// operations on the same values), and the closed form walks one period of ranks: 1024 float32 on
// 65536 ranks repeat every 64 ranks. nranks when the period does not divide it. nchunks >= 1.
std::size_t loads_period(int nranks, std::int64_t nchunks, std::int64_t count);

// The gamma a model given `gamma_seconds_per_byte` uses on `topology` at a footprint: the
// topology's gamma curve there when the model's gamma is the topology's own, else the model's.
double gamma_at_footprint(const Topology& topology, double gamma_seconds_per_byte, double footprint_bytes);

// The gamma of in-place reductions (a = a (op) b) for a model given `gamma_seconds_per_byte` on
// `topology` (without footprint curves): the topology's in-place gamma when the model's gamma is
// the topology's own and it has one (simulator/type_op_gamma.hpp sets it), else the model's gamma,
// which then prices both operand forms (a given --gamma, an old file, a preset).
inline double in_place_gamma(const Topology& topology, double gamma_seconds_per_byte) {
  if (topology.gamma_seconds_per_byte() != gamma_seconds_per_byte) return gamma_seconds_per_byte;
  return topology.in_place_gamma_seconds_per_byte().value_or(gamma_seconds_per_byte);
}

}  // namespace ringlab::simulator
