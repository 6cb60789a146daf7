#include "calibration/calibrated_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "topology/presets.hpp"
#include "calibration/robust_fit.hpp"

namespace ringlab::calibration {

namespace {

std::vector<Sample> pair_samples(const PairMeasurement& pair) {
  std::vector<Sample> samples;
  for (const PingPongSample& sample : pair.samples)
    samples.push_back({static_cast<double>(sample.bytes), sample.one_way_median_seconds});
  return samples;
}

nlohmann::json fit_to_json(const LinearFit& fit, const char* intercept_name, const char* slope_name,
                           const std::vector<std::pair<int, int>>& ranks_of_sample = {}) {
  return {{intercept_name, fit.intercept},
          {slope_name, fit.slope},
          {"intercept_clamped_to_zero", fit.intercept_clamped},
          {"slope_method", describe(fit.slope_method)},
          {"outliers_dropped", dropped_samples_record(fit, ranks_of_sample)},
          {"relative_residuals", fit.relative_residuals},
          {"median_abs_relative_residual", fit.median_abs_residual},
          {"max_abs_relative_residual", fit.max_abs_residual}};
}

// The points (footprint(bytes), value(samples of that size)) in increasing size, one per size.
template <class Value>
FootprintCurve curve_by_size(const std::map<std::int64_t, std::vector<double>>& samples_by_size,
                             double (*footprint)(double), Value value) {
  std::vector<CurvePoint> points;
  for (const auto& [bytes, samples] : samples_by_size) {
    const double v = value(static_cast<double>(bytes), median(samples));
    if (v > 0 && std::isfinite(v)) points.push_back({footprint(static_cast<double>(bytes)), v});
  }
  return FootprintCurve(std::move(points));
}

// Copy time / reduce time of each reduce sample that timed a copy, by operand size (step 3).
std::map<std::int64_t, std::vector<double>> copy_ratios_by_size(const Measurements& measurements) {
  std::map<std::int64_t, std::vector<double>> ratios;
  for (const ReduceSample& sample : measurements.reduce)
    if (sample.copy_median_seconds > 0) ratios[sample.bytes].push_back(sample.copy_median_seconds / sample.median_seconds);
  return ratios;
}

// `fit()`, its FitError prefixed with which measurement did not fit (`what`).
template <class Fit>
LinearFit with_context(const std::string& what, Fit fit) {
  try {
    return fit();
  } catch (const FitError& error) {
    throw FitError(fmt::format("{}: {}", what, error.what()));
  }
}

// Steps 1b and 1c repeated: each round removes most of the bias the previous alpha left in beta.
constexpr int fixed_point_rounds = 4;

}  // namespace

nlohmann::json dropped_samples_record(const LinearFit& fit, const std::vector<std::pair<int, int>>& ranks_of_sample) {
  nlohmann::json dropped = nlohmann::json::array();
  for (const DroppedSample& sample : fit.dropped) {
    nlohmann::json entry = {{"sample", sample.index},
                            {"bytes", sample.sample.x},
                            {"time_us", sample.sample.t * 1e6},
                            {"times_the_line", sample.sample.t / sample.line_t}};
    if (sample.index < ranks_of_sample.size())
      entry["ranks"] = {ranks_of_sample[sample.index].first, ranks_of_sample[sample.index].second};
    dropped.push_back(std::move(entry));
  }
  return dropped;
}

double process_share(const FittedParameters& parameters, int endpoints) {
  return std::min(1.0, static_cast<double>(parameters.cores) / static_cast<double>(endpoints));
}

FootprintCurve scaled(const FootprintCurve& curve, double factor) {
  std::vector<CurvePoint> points = curve.points();
  for (CurvePoint& point : points) point.value *= factor;
  return FootprintCurve(std::move(points));
}

LinearFit fit_transfer(std::span<const Sample> samples, const FitOptions& options) {
  if (samples.size() < 2) throw std::invalid_argument("fitting alpha and beta needs at least two sizes");
  std::vector<Sample> small, large;
  std::vector<std::size_t> large_index;  // of each large sample in `samples`
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].x <= static_cast<double>(options.alpha_max_bytes)) small.push_back(samples[i]);
    if (samples[i].x >= static_cast<double>(options.beta_min_bytes)) {
      large.push_back(samples[i]);
      large_index.push_back(i);
    }
  }
  const auto by_size = [](const Sample& a, const Sample& b) { return a.x < b.x; };
  if (small.empty()) small.push_back(*std::min_element(samples.begin(), samples.end(), by_size));
  if (large.empty()) {
    const auto largest = std::max_element(samples.begin(), samples.end(), by_size);
    large.push_back(*largest);
    large_index.push_back(static_cast<std::size_t>(largest - samples.begin()));
  }
  std::vector<double> small_times;
  for (const Sample& sample : small) small_times.push_back(sample.t);
  LinearFit fit;
  fit.intercept = median(small_times);
  for (int round = 0; round < fixed_point_rounds; ++round) {
    RobustSlope slope;
    try {
      slope = fit_slope_robust(large, fit.intercept);
    } catch (const FitError& error) {
      throw FitError(fmt::format("beta from the sizes >= {} B (--beta-min-bytes), through alpha {:.3f} us from the "
                                 "sizes <= {} B (--alpha-max-bytes: {}): {}",
                                 options.beta_min_bytes, fit.intercept * 1e6, options.alpha_max_bytes,
                                 describe_samples(small), error.what()));
    }
    fit.slope = slope.slope;
    fit.slope_method = slope.theil_sen ? SlopeMethod::theil_sen : SlopeMethod::least_squares;
    fit.dropped = std::move(slope.dropped);
    for (DroppedSample& dropped : fit.dropped) dropped.index = large_index[dropped.index];
    std::vector<double> latencies;
    for (const Sample& sample : small) latencies.push_back(sample.t - sample.x * fit.slope);
    fit.intercept = median(latencies);
    fit.intercept_clamped = fit.intercept < 0;
    fit.intercept = std::max(0.0, fit.intercept);
  }
  set_residuals(fit, samples);
  return fit;
}

FittedParameters fit_parameters(const Measurements& measurements, int cores, const FitOptions& options) {
  if (measurements.pairs.empty()) throw std::invalid_argument("calibration measured no rank pair");
  FittedParameters parameters;
  parameters.cores = std::max(1, cores);
  std::vector<Sample> pooled;
  for (const PairMeasurement& pair : measurements.pairs) {
    const std::vector<Sample> samples = pair_samples(pair);
    parameters.pair_fits.push_back(
        with_context(fmt::format("the ping-pong of ranks {} and {}", pair.first, pair.second),
                     [&] { return fit_transfer(samples, options); }));
    pooled.insert(pooled.end(), samples.begin(), samples.end());
  }
  parameters.transfer_fit =
      with_context(fmt::format("the ping-pong of the {} pairs pooled", measurements.pairs.size()),
                   [&] { return fit_transfer(pooled, options); });
  parameters.alpha_seconds = parameters.transfer_fit.intercept;
  parameters.beta_seconds_per_byte = parameters.transfer_fit.slope;

  std::vector<double> aggregates;
  for (const ConcurrentSample& sample : measurements.concurrent.samples)
    if (sample.aggregate_bytes_per_second > 0) aggregates.push_back(sample.aggregate_bytes_per_second);
  if (aggregates.empty()) throw std::invalid_argument("calibration has no concurrent-streaming measurement");
  const double aggregate = median(aggregates);
  const double single_transfer = 1.0 / parameters.beta_seconds_per_byte;
  parameters.memory_bandwidth = std::max(aggregate, single_transfer);
  parameters.memory_saturated = aggregate < 0.9 * measurements.concurrent.active_ranks * single_transfer;

  std::vector<Sample> reduce, out_of_cache;
  for (const ReduceSample& sample : measurements.reduce) {
    reduce.push_back({static_cast<double>(sample.bytes), sample.median_seconds});
    if (sample.bytes >= gamma_min_operand_bytes) out_of_cache.push_back(reduce.back());
  }
  const std::vector<Sample>& gamma_samples = out_of_cache.size() >= 2 ? out_of_cache : reduce;
  parameters.reduce_fit = with_context(
      fmt::format("gamma of the reduce kernel (float32 sum on rank 0, operands of {} .. {} B)",
                  gamma_samples.empty() ? 0.0 : gamma_samples.front().x, gamma_samples.empty() ? 0.0 : gamma_samples.back().x),
      [&] { return fit_relative_robust(gamma_samples); });
  parameters.gamma_seconds_per_byte = parameters.reduce_fit.slope;
  std::vector<double> copy_ratios;
  for (const auto& [bytes, ratios] : copy_ratios_by_size(measurements))
    copy_ratios.insert(copy_ratios.end(), ratios.begin(), ratios.end());
  if (!copy_ratios.empty()) parameters.copy_cost_ratio = median(copy_ratios);
  parameters.curves = fit_footprint_curves(measurements, parameters.alpha_seconds, options);
  parameters.type_op_gammas = fit_type_op_gammas(measurements.reduce_by_type_op);
  parameters.form_gammas = fit_form_gammas(measurements.reduce_by_form);
  return parameters;
}

FootprintCurves fit_footprint_curves(const Measurements& measurements, double alpha_seconds, const FitOptions& options) {
  FootprintCurves curves;
  std::map<std::int64_t, std::vector<double>> one_way;
  for (const PairMeasurement& pair : measurements.pairs)
    for (const PingPongSample& sample : pair.samples)
      if (sample.bytes >= options.beta_min_bytes) one_way[sample.bytes].push_back(sample.one_way_median_seconds);
  curves.link_bandwidth = curve_by_size(one_way, ping_pong_footprint_bytes,
                                        [&](double bytes, double seconds) { return bytes / (seconds - alpha_seconds); });
  if (curves.link_bandwidth.empty())
    throw FitError(fmt::format(
        "the link bandwidth curve: no ping-pong size >= {} B (--beta-min-bytes) took longer than alpha ({:.3f} us); "
        "measure larger sizes (-e)",
        options.beta_min_bytes, alpha_seconds * 1e6));

  const int active = std::max(1, measurements.concurrent.active_ranks);
  std::vector<CurvePoint> streaming;
  for (const ConcurrentSample& sample : measurements.concurrent.samples)
    if (sample.aggregate_bytes_per_second > 0)
      streaming.push_back(
          {streaming_footprint_bytes(static_cast<double>(sample.bytes), active), sample.aggregate_bytes_per_second});
  std::sort(streaming.begin(), streaming.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.footprint_bytes < b.footprint_bytes; });
  if (streaming.empty()) throw std::invalid_argument("calibration has no concurrent-streaming measurement");
  const FootprintCurve streaming_curve(std::move(streaming));
  std::vector<double> footprints;
  for (const FootprintCurve* curve : {static_cast<const FootprintCurve*>(&curves.link_bandwidth), &streaming_curve})
    for (const CurvePoint& point : curve->points()) footprints.push_back(point.footprint_bytes);
  std::sort(footprints.begin(), footprints.end());
  footprints.erase(std::unique(footprints.begin(), footprints.end()), footprints.end());
  std::vector<CurvePoint> bus;
  for (double footprint : footprints)
    bus.push_back({footprint, std::max(streaming_curve.at(footprint), curves.link_bandwidth.at(footprint))});
  curves.switch_capacity = FootprintCurve(std::move(bus));

  std::map<std::int64_t, std::vector<double>> reduce_times;
  for (const ReduceSample& sample : measurements.reduce) reduce_times[sample.bytes].push_back(sample.median_seconds);
  curves.gamma_seconds_per_byte =
      curve_by_size(reduce_times, reduce_footprint_bytes,
                    [](double bytes, double seconds) { return seconds / bytes; });
  if (curves.gamma_seconds_per_byte.empty()) throw std::invalid_argument("calibration has no reduce measurement");
  const std::map<std::int64_t, std::vector<double>> copy_ratios = copy_ratios_by_size(measurements);
  if (!copy_ratios.empty())  // at the reduction's footprint, as gamma's
    curves.copy_cost_ratio = curve_by_size(copy_ratios, reduce_footprint_bytes, [](double, double ratio) { return ratio; });
  return curves;
}

std::string host_shm_preset(const FittedParameters& parameters, int endpoints) {
  return fmt::format("host-shm:{},cores={},bw={:.6g},lat={:.6g},mem_bw={:.6g}", endpoints, parameters.cores,
                     1.0 / parameters.beta_seconds_per_byte, parameters.alpha_seconds / 2, parameters.memory_bandwidth);
}

FootprintCurves set_reduction_costs(Topology& topology, const FittedParameters& parameters, double share) {
  topology.set_gamma_seconds_per_byte(parameters.gamma_seconds_per_byte / share);
  if (parameters.copy_cost_ratio) topology.set_copy_cost_ratio(*parameters.copy_cost_ratio);
  std::vector<TypeOpGamma> type_op_gammas = parameters.type_op_gammas;
  for (TypeOpGamma& row : type_op_gammas) {
    row.in_cache_seconds_per_byte /= share;
    row.out_of_cache_seconds_per_byte /= share;
  }
  topology.set_gamma_by_type_op(std::move(type_op_gammas));
  std::vector<FormGamma> form_gammas = parameters.form_gammas;
  for (FormGamma& row : form_gammas) {
    row.in_cache_seconds_per_byte /= share;
    row.out_of_cache_seconds_per_byte /= share;
  }
  topology.set_gamma_by_form(std::move(form_gammas));
  FootprintCurves curves;
  curves.switch_capacity = parameters.curves.switch_capacity;
  curves.gamma_seconds_per_byte = scaled(parameters.curves.gamma_seconds_per_byte, 1 / share);
  curves.copy_cost_ratio = parameters.curves.copy_cost_ratio;
  return curves;
}

Topology calibrated_topology(const FittedParameters& parameters, int endpoints) {
  Topology topology = make_preset_topology(host_shm_preset(parameters, endpoints));
  const double share = process_share(parameters, endpoints);
  FootprintCurves curves = set_reduction_costs(topology, parameters, share);
  curves.link_bandwidth = scaled(parameters.curves.link_bandwidth, share);
  topology.set_footprint_curves(std::move(curves));
  return topology;
}

nlohmann::json calibration_record(const Measurements& measurements, const FittedParameters& parameters,
                                  const nlohmann::json& context) {
  nlohmann::json pairs = nlohmann::json::array();
  std::vector<std::pair<int, int>> ranks_of_sample;  // of the pooled fit's samples
  for (std::size_t p = 0; p < measurements.pairs.size(); ++p) {
    const PairMeasurement& pair = measurements.pairs[p];
    ranks_of_sample.insert(ranks_of_sample.end(), pair.samples.size(), {pair.first, pair.second});
    nlohmann::json samples = nlohmann::json::array();
    for (const PingPongSample& sample : pair.samples)
      samples.push_back({{"bytes", sample.bytes},
                         {"iterations", sample.iterations},
                         {"one_way_median_us", sample.one_way_median_seconds * 1e6},
                         {"one_way_min_us", sample.one_way_min_seconds * 1e6}});
    pairs.push_back({{"ranks", {pair.first, pair.second}},
                     {"samples", std::move(samples)},
                     {"fit", fit_to_json(parameters.pair_fits[p], "alpha_seconds", "beta_seconds_per_byte")}});
  }
  nlohmann::json concurrent = nlohmann::json::array();
  for (const ConcurrentSample& sample : measurements.concurrent.samples)
    concurrent.push_back({{"bytes", sample.bytes},
                          {"iterations", sample.iterations},
                          {"slowest_rank_median_us", sample.seconds * 1e6},
                          {"aggregate_bytes_per_second", sample.aggregate_bytes_per_second}});
  nlohmann::json reduce = nlohmann::json::array();
  for (const ReduceSample& sample : measurements.reduce) {
    nlohmann::json entry = {{"bytes", sample.bytes}, {"iterations", sample.iterations}, {"median_us", sample.median_seconds * 1e6}};
    if (sample.copy_median_seconds > 0) entry["copy_median_us"] = sample.copy_median_seconds * 1e6;
    reduce.push_back(std::move(entry));
  }
  nlohmann::json record = context;
  record["ping_pong"] = {
      {"what", "round trip / 2 through the Communicator, median over iterations, per pair and size"},
      {"pairs", std::move(pairs)},
      {"fit", fit_to_json(parameters.transfer_fit, "alpha_seconds", "beta_seconds_per_byte", ranks_of_sample)}};
  record["concurrent"] = {
      {"what", "ranks 0..active-1 each send to rank+1 and receive from rank-1 at once (mod active)"},
      {"active_ranks", measurements.concurrent.active_ranks},
      {"samples", std::move(concurrent)},
      {"single_transfer_bytes_per_second", 1.0 / parameters.beta_seconds_per_byte},
      {"memory_bandwidth_bytes_per_second", parameters.memory_bandwidth},
      {"saturated", parameters.memory_saturated}};
  record["reduce"] = {{"what", "reduce_to float32 sum on rank 0 alone, out of place, operands in and out of the last-level cache"},
                      {"samples", std::move(reduce)},
                      {"fit", fit_to_json(parameters.reduce_fit, "intercept_seconds", "gamma_seconds_per_byte")}};
  if (parameters.copy_cost_ratio) record["reduce"]["copy_cost_ratio"] = *parameters.copy_cost_ratio;
  if (!measurements.reduce_by_type_op.samples.empty())
    record["reduce_by_type_op"] = type_op_reduce_record(measurements.reduce_by_type_op);
  if (!measurements.reduce_by_form.samples.empty())
    record["reduce_by_form"] = form_reduce_record(measurements.reduce_by_form);
  if (!measurements.waiting_mates.samples.empty()) {
    nlohmann::json samples = nlohmann::json::array();
    for (const WaitingMatesSample& sample : measurements.waiting_mates.samples)
      samples.push_back({{"bytes", sample.bytes},
                         {"sleeping_one_way_us", sample.sleeping_one_way_seconds * 1e6},
                         {"polling_one_way_us", sample.polling_one_way_seconds * 1e6}});
    record["waiting_mates"] = {
        {"what", "ping-pong of ranks [a, b] (median one-way time) while the other ranks sleep, then while they poll and "
                 "yield the CPU as the executor's ranks wait"},
        {"ranks", {measurements.waiting_mates.first, measurements.waiting_mates.second}},
        {"samples", std::move(samples)}};
  }
  record["parameters"] = {{"alpha_seconds", parameters.alpha_seconds},
                          {"beta_seconds_per_byte", parameters.beta_seconds_per_byte},
                          {"gamma_seconds_per_byte_one_core", parameters.gamma_seconds_per_byte},
                          {"memory_bandwidth_bytes_per_second", parameters.memory_bandwidth},
                          {"cores", parameters.cores}};
  return record;
}

}  // namespace ringlab::calibration
