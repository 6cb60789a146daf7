// A calibrated topology with a node per CPU, for ranks that are each bound to one CPU with some
// CPUs shared (more ranks than cores under `mpiexec -bind-to core`). Two ranks on one CPU copy
// through that CPU's cache and take turns on it; two ranks on two CPUs copy across them. The two
// kinds of pair can differ in bandwidth by a factor, which one host-shm bandwidth cannot follow.
// Steps (docs/calibration.md, "Per-CPU topology"):
//   1. each rank's CPU from the recorded placement; none when a rank may run on several CPUs;
//   2. the measured pairs split into same-CPU and cross-CPU pairs; each class's samples pooled and
//      fitted like host-shm's one pool (fit_transfer: alpha from small sizes, beta from large,
//      robust to slow outliers; a FitError names the class and its pairs);
//      no topology when either class has no pair (every rank alone on its CPU, or all on one);
//   3. the topology: host-shm's memory bus (capacity and curve as calibrated), each rank linked
//      to it with the cross-CPU fit and to an unlimited switch "cpuK" for its CPU with the
//      same-CPU fit; scaled as host-shm scales (bandwidth x C/N, latency x N/C, gamma x N/C);
//   4. routes take the fewest hops, then the least latency (topology/routing.hpp): both paths
//      of a pair have two hops, so the same-CPU latency is written at most 0.99 x the cross-CPU
//      one, which sends same-CPU pairs through their CPU. The same-CPU alpha can fit higher
//      (the two ranks take turns), so up to that difference per step is given up (a few us,
//      small beside the sizes >= 64 KiB that compare judges);
//   5. footprint curves: the memory bus and gamma as host-shm's; the links by one factor curve
//      (link_bandwidth_factor): at each ping-pong size >= beta_min_bytes, each class's median
//      over its pairs of bytes / (time - its alpha), times its beta (1 where the class follows
//      its line), the two classes averaged. Normalising each class by its own beta keeps the
//      factor from carrying the classes' difference (a pooled curve over the pooled 1/beta
//      would mostly read the gap between the classes);
//   6. CPU sharing (Topology::cpu_sharing): each rank's CPU, the share C/N the links were written
//      for, and what a waiting rank costs a busy one on its CPU, from the waiting-mates
//      measurement: the pair's ping-pong takes r times as long while the other ranks poll as
//      while they sleep (median over sizes); at the pair's end whose CPU has the most waiting
//      ranks w per busy rank b, a busy rank's share goes from 1/b to 1/(b + cost x w), so
//      cost = (r - 1) x b / w, kept within [0, 1]. Not measured (an older record, or no rank waits
//      beside the pair): cost 1, the written share always, as before this step.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration/calibrated_topology.hpp"

namespace ringlab::calibration {

// Step 1: the one CPU of each rank from lists like "3" (report::RankCpus::list); nullopt when a
// list is empty or names more than one CPU.
std::optional<std::vector<int>> cpu_of_each_rank(const std::vector<std::string>& cpu_lists);

// Step 6.
struct WaitingRankCost {
  double cost = 1;             // what the topology's cpu_sharing carries
  double median_ratio = 1;     // polling / sleeping one-way time
  double waiting_per_busy = 0; // w / b at the pair's end with the most waiting ranks
  bool clamped = false;        // (r - 1) b / w fell outside [0, 1]
};

struct CpuClassFits {
  LinearFit same_cpu;
  LinearFit cross_cpu;
  int same_cpu_pairs = 0;
  int cross_cpu_pairs = 0;
  // The pair of each sample of a class's fit, in the fit's order (names its dropped samples).
  std::vector<std::pair<int, int>> same_cpu_ranks;
  std::vector<std::pair<int, int>> cross_cpu_ranks;
  FootprintCurve link_bandwidth_factor;  // step 5
  std::optional<WaitingRankCost> waiting;  // step 6; nullopt: not measured, cost 1
};

// Step 6's cost; nullopt when the measurement has no sample, or no rank waits beside the pair.
// Throws std::invalid_argument when the pair names a rank `cpu_of_rank` does not hold.
std::optional<WaitingRankCost> waiting_rank_cost(const WaitingMatesMeasurement& measurement,
                                                 const std::vector<int>& cpu_of_rank);

// Steps 2, 5's factor and 6's cost; nullopt when a class has no measured pair. Throws std::invalid_argument when a pair
// names a rank `cpu_of_rank` does not hold.
std::optional<CpuClassFits> fit_cpu_classes(const Measurements& measurements, const std::vector<int>& cpu_of_rank,
                                            const FitOptions& options);

// Steps 3-6 for the ranks of `cpu_of_rank` (the endpoints).
Topology per_cpu_topology(const FittedParameters& parameters, const CpuClassFits& classes,
                          const std::vector<int>& cpu_of_rank);

// The "cpu_classes" object of the calibration record: each class's pairs and fit.
nlohmann::json cpu_classes_record(const CpuClassFits& classes);

}  // namespace ringlab::calibration
