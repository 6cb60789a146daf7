#include "calibration/per_cpu_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

namespace ringlab::calibration {

namespace {

// Step 4: same-CPU routes must see less latency through their CPU than through the bus.
constexpr double same_cpu_latency_cap = 0.99;

nlohmann::json class_record(const LinearFit& fit, int pairs, const std::vector<std::pair<int, int>>& ranks_of_sample) {
  return {{"pairs", pairs},
          {"alpha_seconds", fit.intercept},
          {"beta_seconds_per_byte", fit.slope},
          {"slope_method", describe(fit.slope_method)},
          {"outliers_dropped", dropped_samples_record(fit, ranks_of_sample)},
          {"median_abs_relative_residual", fit.median_abs_residual},
          {"max_abs_relative_residual", fit.max_abs_residual}};
}

// fit_transfer of one class's pooled samples; a FitError names the class and its pairs.
LinearFit fit_class(const char* name, const std::vector<Sample>& samples,
                    const std::vector<std::pair<int, int>>& ranks_of_sample, const FitOptions& options) {
  try {
    return fit_transfer(samples, options);
  } catch (const FitError& error) {
    std::string pairs;
    for (std::size_t i = 0; i < ranks_of_sample.size(); ++i)
      if (i == 0 || ranks_of_sample[i] != ranks_of_sample[i - 1])
        pairs += fmt::format("{}({}, {})", pairs.empty() ? "" : ", ", ranks_of_sample[i].first, ranks_of_sample[i].second);
    throw FitError(fmt::format("the ping-pong of the {} pairs {} pooled: {}", name, pairs, error.what()));
  }
}

// Step 5: for each size >= beta_min_bytes, median over the class's pairs (those whose
// is_same_cpu entry equals same_cpu) of bytes / (time - alpha) x beta, keyed by the ping-pong
// footprint.
std::map<double, double> normalised_link_curve(const Measurements& measurements, const std::vector<bool>& is_same_cpu,
                                               bool same_cpu, const LinearFit& fit, const FitOptions& options) {
  std::map<std::int64_t, std::vector<double>> by_size;
  for (std::size_t p = 0; p < measurements.pairs.size(); ++p) {
    if (is_same_cpu[p] != same_cpu) continue;
    for (const PingPongSample& sample : measurements.pairs[p].samples) {
      const double net = sample.one_way_median_seconds - fit.intercept;
      if (sample.bytes >= options.beta_min_bytes && net > 0)
        by_size[sample.bytes].push_back(static_cast<double>(sample.bytes) / net * fit.slope);
    }
  }
  std::map<double, double> curve;
  for (const auto& [bytes, factors] : by_size)
    curve[ping_pong_footprint_bytes(static_cast<double>(bytes))] = median(factors);
  return curve;
}

// Throws std::invalid_argument when a measured pair (`what`) names a rank past those placed.
void check_pair_placed(const char* what, int first, int second, const std::vector<int>& cpu_of_rank) {
  const auto ranks = static_cast<int>(cpu_of_rank.size());
  if (first < 0 || first >= ranks || second < 0 || second >= ranks)
    throw std::invalid_argument(
        fmt::format("{} pair ({}, {}) names a rank past the {} ranks placed", what, first, second, ranks));
}

}  // namespace

std::optional<std::vector<int>> cpu_of_each_rank(const std::vector<std::string>& cpu_lists) {
  std::vector<int> cpus;
  for (const std::string& list : cpu_lists) {
    int cpu = -1;
    const char* end = list.data() + list.size();
    const auto [stop, error] = std::from_chars(list.data(), end, cpu);
    if (list.empty() || error != std::errc() || stop != end || cpu < 0) return std::nullopt;
    cpus.push_back(cpu);
  }
  return cpus;
}

std::optional<WaitingRankCost> waiting_rank_cost(const WaitingMatesMeasurement& measurement,
                                                 const std::vector<int>& cpu_of_rank) {
  if (measurement.samples.empty()) return std::nullopt;
  check_pair_placed("waiting-mates", measurement.first, measurement.second, cpu_of_rank);
  const auto ranks = static_cast<int>(cpu_of_rank.size());
  const int pair[2] = {measurement.first, measurement.second};
  WaitingRankCost result;
  for (int end : pair) {
    const int cpu = cpu_of_rank[static_cast<std::size_t>(end)];
    int busy = 0, waiting = 0;
    for (int rank = 0; rank < ranks; ++rank)
      if (cpu_of_rank[static_cast<std::size_t>(rank)] == cpu) ++(rank == pair[0] || rank == pair[1] ? busy : waiting);
    result.waiting_per_busy = std::max(result.waiting_per_busy, static_cast<double>(waiting) / busy);
  }
  if (result.waiting_per_busy == 0) return std::nullopt;
  std::vector<double> ratios;
  for (const WaitingMatesSample& sample : measurement.samples)
    ratios.push_back(sample.polling_one_way_seconds / sample.sleeping_one_way_seconds);
  result.median_ratio = median(ratios);
  const double cost = (result.median_ratio - 1) / result.waiting_per_busy;
  result.cost = std::clamp(cost, 0.0, 1.0);
  result.clamped = result.cost != cost;
  return result;
}

std::optional<CpuClassFits> fit_cpu_classes(const Measurements& measurements, const std::vector<int>& cpu_of_rank,
                                            const FitOptions& options) {
  std::vector<Sample> same_cpu, cross_cpu;
  std::vector<bool> is_same_cpu;
  CpuClassFits classes;
  for (const PairMeasurement& pair : measurements.pairs) {
    check_pair_placed("ping-pong", pair.first, pair.second, cpu_of_rank);
    const bool same = cpu_of_rank[static_cast<std::size_t>(pair.first)] ==
                      cpu_of_rank[static_cast<std::size_t>(pair.second)];
    ++(same ? classes.same_cpu_pairs : classes.cross_cpu_pairs);
    is_same_cpu.push_back(same);
    for (const PingPongSample& sample : pair.samples) {
      (same ? same_cpu : cross_cpu).push_back({static_cast<double>(sample.bytes), sample.one_way_median_seconds});
      (same ? classes.same_cpu_ranks : classes.cross_cpu_ranks).emplace_back(pair.first, pair.second);
    }
  }
  if (classes.same_cpu_pairs == 0 || classes.cross_cpu_pairs == 0) return std::nullopt;
  classes.same_cpu = fit_class("same-CPU", same_cpu, classes.same_cpu_ranks, options);
  classes.cross_cpu = fit_class("cross-CPU", cross_cpu, classes.cross_cpu_ranks, options);
  const std::map<double, double> same_curve =
      normalised_link_curve(measurements, is_same_cpu, true, classes.same_cpu, options);
  const std::map<double, double> cross_curve =
      normalised_link_curve(measurements, is_same_cpu, false, classes.cross_cpu, options);
  std::vector<CurvePoint> factor;
  for (const auto& [footprint, value] : same_curve)
    if (cross_curve.contains(footprint)) factor.push_back({footprint, (value + cross_curve.at(footprint)) / 2});
  classes.link_bandwidth_factor = FootprintCurve(std::move(factor));
  classes.waiting = waiting_rank_cost(measurements.waiting_mates, cpu_of_rank);
  return classes;
}

Topology per_cpu_topology(const FittedParameters& parameters, const CpuClassFits& classes,
                          const std::vector<int>& cpu_of_rank) {
  const int endpoints = static_cast<int>(cpu_of_rank.size());
  const double share = process_share(parameters, endpoints);
  const LinkDirection cross{share / classes.cross_cpu.slope, classes.cross_cpu.intercept / 2 / share};
  const double same_cpu_alpha = std::min(classes.same_cpu.intercept, same_cpu_latency_cap * classes.cross_cpu.intercept);
  const LinkDirection same{share / classes.same_cpu.slope, same_cpu_alpha / 2 / share};

  Topology topology(fmt::format("per-cpu:{},cores={} (calibrated)", endpoints, parameters.cores));
  for (int rank = 0; rank < endpoints; ++rank) topology.add_endpoint(fmt::format("process{}", rank));
  const NodeId bus = topology.add_switch("memory-bus", parameters.memory_bandwidth);
  std::map<int, NodeId> cpu_switch;
  for (int cpu : cpu_of_rank)
    if (!cpu_switch.contains(cpu)) cpu_switch[cpu] = topology.add_switch(fmt::format("cpu{}", cpu));
  for (int rank = 0; rank < endpoints; ++rank) {
    topology.add_link(rank, bus, cross);
    topology.add_link(rank, cpu_switch.at(cpu_of_rank[static_cast<std::size_t>(rank)]), same);
  }
  FootprintCurves curves = set_reduction_costs(topology, parameters, share);
  curves.link_bandwidth_factor = classes.link_bandwidth_factor;
  topology.set_footprint_curves(std::move(curves));
  topology.set_cpu_sharing({cpu_of_rank, share, classes.waiting ? classes.waiting->cost : 1.0});
  topology.validate();
  return topology;
}

nlohmann::json cpu_classes_record(const CpuClassFits& classes) {
  return {{"what", "ping-pong pairs split by whether both ranks are bound to one CPU; each class pooled and fitted "
                   "like the pooled fit"},
          {"same_cpu", class_record(classes.same_cpu, classes.same_cpu_pairs, classes.same_cpu_ranks)},
          {"cross_cpu", class_record(classes.cross_cpu, classes.cross_cpu_pairs, classes.cross_cpu_ranks)},
          {"waiting_rank_cost",
           classes.waiting ? nlohmann::json{{"cost", classes.waiting->cost},
                                            {"median_polling_over_sleeping", classes.waiting->median_ratio},
                                            {"waiting_per_busy_rank", classes.waiting->waiting_per_busy},
                                            {"clamped", classes.waiting->clamped}}
                           : nlohmann::json("not measured: cost 1 (the written share always)")}};
}

}  // namespace ringlab::calibration
