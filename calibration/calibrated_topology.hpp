// From calibration measurements to model parameters and a ringlab.topology/1 document
// (docs/calibration.md). Steps:
//   1. alpha, beta of one-way time = alpha + bytes * beta, over the median samples of every
//      measured pair pooled (the host-shm model has one alpha and one beta; each pair is also
//      fitted alone, for the record). Times on a CPU host are not linear in size (cache-resident
//      messages move several times faster per byte than 64 MiB ones), so one line fitted over all
//      sizes serves neither end. alpha comes from the small sizes and beta from the large ones:
//      a. alpha0 = median time of the sizes <= alpha_max_bytes (latency-bound);
//      b. beta = relative-error least squares slope (linear_fit.hpp) over the sizes >=
//         beta_min_bytes with the intercept held at alpha0, slow outliers left out and Theil–Sen's
//         slope where none is positive (robust_fit.hpp: fit_slope_robust);
//      c. alpha = median of (time - bytes * beta) over the small sizes, at least 0;
//      b and c repeated four times (a fixed point: a line is recovered exactly).
//      Residuals are reported for every size;
//   2. memory bandwidth: the median aggregate rate of the concurrent-streaming sizes, at least
//      1/beta (one transfer alone reached that, so the shared capacity is not below it);
//      "saturated" when the aggregate is below 90 % of active ranks x 1/beta (the shared capacity
//      limits), otherwise it is a lower bound of the capacity;
//   3. gamma: slope of a relative-error fit of the reduce kernel's time over operand bytes
//      (robust_fit.hpp: fit_relative_robust);
//   4. the topology: host-shm:E,cores=C,bw=1/beta,lat=alpha/2 (a route crosses two links),
//      mem_bw from 2, and gamma scaled by E/C when E processes share C < E cores (the preset's
//      rule for bandwidth and latency, applied to the reduction too);
//   5. footprint curves (fit_footprint_curves), the same measurements seen per size: this machine
//      copies cache-resident buffers faster than DRAM-resident ones, which no single beta follows.
//      a. link bandwidth at the ping-pong footprint 4 s (simulator/job_footprint.hpp) of every size
//         s >= beta_min_bytes: s / (median over pairs of the one-way time - alpha);
//      b. memory bus at every footprint of a and of the concurrent streaming (2 k s): the larger
//         of the streaming aggregate and the link curve there (as in 2, a single transfer's rate
//         bounds the shared capacity from below);
//      c. gamma at the reduce footprint 3 s of every reduce operand size s: time / s;
//      written scaled like step 4 (bandwidths x C/E, gamma x E/C);
//   6. gamma of every (type, op) in cache and out of cache (type_op_reduce.hpp), written as the
//      topology's gamma_by_type_op, scaled like gamma (x E/C);
//   7. gamma of each operand form, alone and with k ranks reducing at once (form_reduce.hpp),
//      written as the topology's gamma_by_form, scaled like gamma (x E/C).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "calibration/linear_fit.hpp"
#include "calibration/measurements.hpp"
#include "topology/topology.hpp"
#include "calibration/form_reduce.hpp"
#include "calibration/type_op_reduce.hpp"

namespace ringlab::calibration {

struct Measurements {
  std::vector<PairMeasurement> pairs;
  ConcurrentMeasurement concurrent;
  std::vector<ReduceSample> reduce;
  WaitingMatesMeasurement waiting_mates;  // empty samples: not measured
  TypeOpReduceMeasurement reduce_by_type_op;  // empty samples: not measured
  FormReduceMeasurement reduce_by_form;        // empty samples: not measured
};

struct FitOptions {
  std::int64_t alpha_max_bytes = 4096;          // sizes that fix alpha (step 1a, 1c)
  std::int64_t beta_min_bytes = 64 * 1024;      // sizes that fix beta (step 1b): the sizes compare judges
};

struct FittedParameters {
  int cores = 1;
  double alpha_seconds = 0;
  double beta_seconds_per_byte = 0;
  LinearFit transfer_fit;                 // pooled, samples in (pair, size) order
  std::vector<LinearFit> pair_fits;       // one per measured pair
  double memory_bandwidth = 0;            // bytes/s
  bool memory_saturated = false;
  double gamma_seconds_per_byte = 0;      // one process on a core of its own
  LinearFit reduce_fit;
  // Median over the reduce sizes of copy time / reduce time (the same operand bytes); nothing when
  // the record has no copy timing.
  std::optional<double> copy_cost_ratio;
  FootprintCurves curves;                 // step 5, one process on a core of its own
  std::vector<TypeOpGamma> type_op_gammas;  // step 6, one process on a core of its own; empty: not measured
  std::vector<FormGamma> form_gammas;       // step 7, each process on a core of its own; empty: not measured
};

// Reduce operands at least this large fix the scalar gamma (step 3): out of cache, as before the
// reduce was also measured in cache.
inline constexpr std::int64_t gamma_min_operand_bytes = std::int64_t{16} << 20;

// Throws std::invalid_argument when a fit is impossible (too few sizes), FitError naming the
// measurement (a pair, the pooled pairs, the reduce kernel, the link curve) when times do not grow.
FittedParameters fit_parameters(const Measurements& measurements, int cores, const FitOptions& options = {});

// Step 1 on one set of (bytes, one-way seconds) samples.
LinearFit fit_transfer(std::span<const Sample> samples, const FitOptions& options);

// Step 5 alone, with alpha and beta_min_bytes as given. Throws std::invalid_argument when a curve
// has no point (no ping-pong size >= beta_min_bytes slower than alpha, no streaming or reduce sample).
FootprintCurves fit_footprint_curves(const Measurements& measurements, double alpha_seconds, const FitOptions& options);

// The share of a core each of E processes gets on the calibrated machine's C cores: min(1, C/E)
// (step 4's scaling rule, also the per-CPU topology's).
double process_share(const FittedParameters& parameters, int endpoints);

// The curve with every value multiplied by `factor`.
FootprintCurve scaled(const FootprintCurve& curve, double factor);

// What both calibrated topologies (host-shm and per-CPU) take alike from the reduce, copy and
// streaming measurements: sets gamma, gamma_by_type_op and gamma_by_form (x 1/share) and the copy cost ratio on `topology` and
// returns the footprint curves of gamma (x 1/share), the copy cost ratio (a ratio of two CPU
// times: not scaled) and the memory bus, to which the caller adds its link curves.
FootprintCurves set_reduction_costs(Topology& topology, const FittedParameters& parameters, double share);

// "host-shm:E,cores=C,bw=...,lat=...,mem_bw=..." for E endpoints.
std::string host_shm_preset(const FittedParameters& parameters, int endpoints);

// The preset built, with gamma set (scaled as step 4 says).
Topology calibrated_topology(const FittedParameters& parameters, int endpoints);

// The samples `fit` left out as slow outliers (robust_fit.hpp): index, bytes, time, how many times
// the reference line; with their pair's ranks when `ranks_of_sample` (one per fitted sample) is given.
nlohmann::json dropped_samples_record(const LinearFit& fit, const std::vector<std::pair<int, int>>& ranks_of_sample = {});

// The "calibration" record kept inside the topology document: every measurement, the fits and
// their residuals. `context` (command, machine, backend, ...) is copied in as given.
nlohmann::json calibration_record(const Measurements& measurements, const FittedParameters& parameters,
                                  const nlohmann::json& context);

}  // namespace ringlab::calibration
