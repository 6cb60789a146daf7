// `ringlab calibrate`: measures this machine's transfers (ping-pong per rank pair, concurrent
// streaming) and reduce kernel through the Communicator the executor uses, fits the host-shm
// model's parameters and writes a calibrated ringlab.topology/1 file (docs/calibration.md).
// It never times an all-reduce. With --from-report it measures nothing: it refits the samples a
// calibration record already holds and writes a new topology (the committed calibrations refitted).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>

#include "cli/checked_option.hpp"
#include "calibration/calibrated_topology.hpp"
#include "calibration/calibration_record.hpp"
#include "cli/cli_util.hpp"
#include "cli/commands.hpp"
#include "cli/job_options.hpp"
#include "collectives/backend_registry.hpp"
#include "collectives/capabilities.hpp"
#include "cli/launch.hpp"
#include "report/machine_info.hpp"
#include "io/output_file.hpp"
#include "calibration/per_cpu_topology.hpp"
#include "bench/src/rank_cpus_exchange.hpp"
#include "report/rank_placement.hpp"
#include "report/utc_timestamp.hpp"
#include "cli/setup_phase.hpp"
#include "topology/topology_io.hpp"

namespace ringlab::cli {

namespace {

struct CalibrateArguments {
  std::string min_bytes = "8";
  std::string max_bytes = "64M";
  std::int64_t step_factor = 4;
  std::optional<int> endpoints;  // not given: the ranks measured
  std::string alpha_max_bytes = "4K";
  std::string beta_min_bytes = "64K";
  double min_seconds_per_size = 0.2;
  std::string model = "auto";  // auto | host-shm | per-cpu
  std::string backend = "auto";
  int ranks = 2;
  double timeout_seconds = default_timeout_seconds;
  std::string json;
  std::string from_report;
  bool force = false;
  bool quiet = false;
  std::string command_line;
  int standard_output = 1;  // where --json - goes (io::StandardOutputForData)
};

// min, min*f, min*f^2, ... and max itself.
std::vector<std::int64_t> ping_pong_sizes(const CalibrateArguments& arguments) {
  const std::int64_t min_bytes = parse_size(arguments.min_bytes);
  const std::int64_t max_bytes = parse_size(arguments.max_bytes);
  if (min_bytes < 1) throw std::invalid_argument("-b/--minbytes must be at least 1");
  if (min_bytes > max_bytes)
    throw std::invalid_argument(fmt::format("-b/--minbytes {} is larger than -e/--maxbytes {}", min_bytes, max_bytes));
  if (max_bytes > (std::int64_t{1} << 30)) throw std::invalid_argument("-e/--maxbytes may be at most 1G");
  if (arguments.step_factor < 2) throw std::invalid_argument("-f/--stepfactor must be at least 2");
  std::vector<std::int64_t> sizes;
  for (std::int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= arguments.step_factor) {
    sizes.push_back(bytes);
    if (bytes > max_bytes / arguments.step_factor) break;
  }
  if (sizes.back() != max_bytes) sizes.push_back(max_bytes);
  if (sizes.size() < 2) throw std::invalid_argument("calibration needs at least two sizes to fit alpha and beta; widen -b..-e");
  return sizes;
}

// Streaming sizes: the ping-pong sizes from --beta-min-bytes up, those whose bandwidth the link
// curve holds, so that the memory bus's capacity is measured at each footprint the link's is
// (below 2 MiB the bus was the 2 MiB figure, clamped, and flows that each ran from their own
// core's cache shared one transfer's bandwidth), else the largest.
std::vector<std::int64_t> streaming_sizes(const std::vector<std::int64_t>& sizes, std::int64_t beta_min_bytes) {
  std::vector<std::int64_t> chosen;
  std::copy_if(sizes.begin(), sizes.end(), std::back_inserter(chosen),
               [&](std::int64_t b) { return b >= beta_min_bytes; });
  if (chosen.empty()) chosen.push_back(sizes.back());
  return chosen;
}

// Sizes of the waiting-mates measurement: the ping-pong sizes from 128 KiB to 32 MiB (where the
// bandwidth, which a rank's share of its CPU sets, outweighs the latency), else the largest.
std::vector<std::int64_t> waiting_mates_sizes(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> chosen;
  std::copy_if(sizes.begin(), sizes.end(), std::back_inserter(chosen),
               [](std::int64_t b) { return b >= (128 << 10) && b <= (32 << 20); });
  if (chosen.empty()) chosen.push_back(sizes.back());
  return chosen;
}

// "ranks 0-2 2097152 B 4123.100 us (20.0 x the line), ..." for the samples `fit` left out; `ranks`
// gives each fitted sample's pair (empty: none named).
std::string describe_dropped(const calibration::LinearFit& fit, const std::vector<std::pair<int, int>>& ranks) {
  std::string text;
  for (const calibration::DroppedSample& dropped : fit.dropped) {
    if (!text.empty()) text += ", ";
    if (dropped.index < ranks.size())
      text += fmt::format("ranks {}-{} ", ranks[dropped.index].first, ranks[dropped.index].second);
    text += fmt::format("{:.0f} B {:.3f} us ({:.1f} x the line)", dropped.sample.x, dropped.sample.t * 1e6,
                        dropped.sample.t / dropped.line_t);
  }
  return text;
}

// What the robust fit did, where it did anything (calibration/robust_fit.hpp).
void print_robust_fit(const calibration::Measurements& measurements, const calibration::FittedParameters& fit) {
  std::vector<std::pair<int, int>> ranks;  // of the pooled fit's samples
  for (const calibration::PairMeasurement& pair : measurements.pairs)
    ranks.insert(ranks.end(), pair.samples.size(), {pair.first, pair.second});
  if (fit.transfer_fit.slope_method == calibration::SlopeMethod::theil_sen)
    fmt::print("# beta: Theil-Sen slope of the large sizes: least squares through alpha found no positive slope (the "
               "small sizes were slow; was the machine busy?)\n");
  if (!fit.transfer_fit.dropped.empty())
    fmt::print("# ping-pong: {} slow outlier(s) left out of the fit: {}\n", fit.transfer_fit.dropped.size(),
               describe_dropped(fit.transfer_fit, ranks));
  if (fit.reduce_fit.slope_method == calibration::SlopeMethod::theil_sen)
    fmt::print("# gamma: Theil-Sen slope: least squares found no positive slope\n");
  if (!fit.reduce_fit.dropped.empty())
    fmt::print("# reduce: {} slow outlier(s) left out of the fit: {}\n", fit.reduce_fit.dropped.size(),
               describe_dropped(fit.reduce_fit, {}));
}

// The reduce kernel per (type, op): one line per type, each op's GB/s reduced in and out of cache.
void print_type_op_gammas(const calibration::Measurements& measurements, const calibration::FittedParameters& fit) {
  if (fit.type_op_gammas.empty()) {
    fmt::print("# reduce kernel by type and op: not measured (a record from before it); every pair is priced with "
               "float32/sum's gamma\n");
    return;
  }
  fmt::print("# reduce kernel by type and op, GB/s reduced in cache / out of cache (operands of {} / {} B), "
             "gamma_by_type_op:\n",
             measurements.reduce_by_type_op.in_cache_bytes, measurements.reduce_by_type_op.out_of_cache_bytes);
  for (std::size_t first = 0; first < fit.type_op_gammas.size();) {
    std::string line;
    std::size_t row = first;
    for (; row < fit.type_op_gammas.size() && fit.type_op_gammas[row].type == fit.type_op_gammas[first].type; ++row)
      line += fmt::format("{}{} {:.2f} / {:.2f}", row == first ? "" : ", ", fit.type_op_gammas[row].op,
                          1e-9 / fit.type_op_gammas[row].in_cache_seconds_per_byte,
                          1e-9 / fit.type_op_gammas[row].out_of_cache_seconds_per_byte);
    fmt::print("#   {}: {}\n", fit.type_op_gammas[first].type, line);
    first = row;
  }
}

// The float32/sum kernel per operand form and ranks reducing at once, GB/s reduced per rank.
void print_form_gammas(const calibration::FittedParameters& fit) {
  if (fit.form_gammas.empty()) {
    fmt::print("# reduce kernel by operand form: not measured (a record from before it); both forms are priced with "
               "gamma\n");
    return;
  }
  std::string line;
  for (const FormGamma& row : fit.form_gammas)
    line += fmt::format("{}{} x {} {:.2f} / {:.2f}", line.empty() ? "" : ", ", row.form, row.ranks_reducing,
                        1e-9 / row.in_cache_seconds_per_byte, 1e-9 / row.out_of_cache_seconds_per_byte);
  fmt::print("# reduce kernel by operand form x ranks reducing at once, GB/s per rank in / out of cache, "
             "gamma_by_form: {}\n",
             line);
}

void print_summary(const calibration::Measurements& measurements, const calibration::FittedParameters& fit,
                   const std::string& preset) {
  fmt::print("# ping-pong: {} pair(s); one-way time = round trip / 2, median over iterations\n",
             measurements.pairs.size());
  fmt::print("{:>10} {:>16} {:>14} {:>10}\n", "bytes", "one-way us (med)", "fitted us", "residual");
  const std::size_t sizes = measurements.pairs.front().samples.size();
  for (std::size_t i = 0; i < sizes; ++i) {
    std::vector<double> over_pairs;
    for (const calibration::PairMeasurement& pair : measurements.pairs)
      over_pairs.push_back(pair.samples[i].one_way_median_seconds);
    const double measured = calibration::median(over_pairs);
    const auto bytes = measurements.pairs.front().samples[i].bytes;
    const double fitted = fit.alpha_seconds + fit.beta_seconds_per_byte * static_cast<double>(bytes);
    fmt::print("{:>10} {:>16.2f} {:>14.2f} {:>9.1f}%\n", bytes, measured * 1e6, fitted * 1e6,
               (fitted - measured) / measured * 100);
  }
  fmt::print("# alpha {:.3f} us{}, beta {:.4g} s/B ({:.2f} GB/s); fit |residual| median {:.1f} %, max {:.1f} %\n",
             fit.alpha_seconds * 1e6, fit.transfer_fit.intercept_clamped ? " (clamped to 0)" : "",
             fit.beta_seconds_per_byte, 1e-9 / fit.beta_seconds_per_byte, fit.transfer_fit.median_abs_residual * 100,
             fit.transfer_fit.max_abs_residual * 100);
  print_robust_fit(measurements, fit);
  for (const calibration::ConcurrentSample& sample : measurements.concurrent.samples)
    fmt::print("# concurrent: {} ranks x {} B at once: {:.2f} GB/s in all\n", measurements.concurrent.active_ranks,
               sample.bytes, sample.aggregate_bytes_per_second / 1e9);
  fmt::print("# memory bandwidth shared by copies {:.2f} GB/s ({})\n", fit.memory_bandwidth / 1e9,
             fit.memory_saturated ? "saturated: below 90 % of active ranks x one transfer"
                                  : "not saturated: a lower bound of the shared capacity");
  fmt::print("# reduce kernel (float32 sum, out of cache): gamma {:.4g} s/B ({:.2f} GB/s reduced) on one core\n",
             fit.gamma_seconds_per_byte, 1e-9 / fit.gamma_seconds_per_byte);
  print_type_op_gammas(measurements, fit);
  print_form_gammas(fit);
  if (fit.copy_cost_ratio)
    fmt::print("# copy (memcpy of the same bytes): {:.3f} x a reduction's time, median over the reduce sizes; the "
               "flow-level model prices the executor's scratch copies with it\n",
               *fit.copy_cost_ratio);
  else
    fmt::print("# copy: not measured (a record from before copy timing); scratch copies are free in the model\n");
  fmt::print("# footprint curves (one process on a core of its own; footprint = bytes all ranks' buffers touch):\n");
  fmt::print("{:>14} {:>14}   {:>14} {:>14}   {:>14} {:>14}\n", "footprint B", "link GB/s", "footprint B",
             "memory GB/s", "footprint B", "reduce GB/s");
  const auto& link = fit.curves.link_bandwidth.points();
  const auto& bus = fit.curves.switch_capacity.points();
  const auto& gamma = fit.curves.gamma_seconds_per_byte.points();
  for (std::size_t i = 0; i < std::max({link.size(), bus.size(), gamma.size()}); ++i) {
    auto column = [i](const std::vector<CurvePoint>& points, bool inverse) {
      if (i >= points.size()) return fmt::format("{:>14} {:>14}", "", "");
      return fmt::format("{:>14.0f} {:>14.2f}", points[i].footprint_bytes,
                         (inverse ? 1 / points[i].value : points[i].value) / 1e9);
    };
    fmt::print("{}   {}   {}\n", column(link, false), column(bus, false), column(gamma, true));
  }
  fmt::print("# topology {}\n", preset);
}

// The model the written topology uses, and why (docs/calibration.md, "Per-CPU topology").
struct ChosenModel {
  std::optional<std::vector<int>> cpu_of_rank;  // set: per-CPU
  std::optional<calibration::CpuClassFits> classes;
  std::string reason;
};

ChosenModel choose_model(const calibration::Measurements& measurements, const std::vector<std::string>& rank_cpus,
                         int endpoints, const calibration::FitOptions& fit_options, const std::string& model) {
  ChosenModel chosen;
  if (model == "host-shm") {
    chosen.reason = "host-shm (--model host-shm)";
    return chosen;
  }
  std::string why_not;
  const std::optional<std::vector<int>> cpus = calibration::cpu_of_each_rank(rank_cpus);
  if (rank_cpus.empty())
    why_not = "the calibration did not record the ranks' CPUs";
  else if (!cpus)
    why_not = "not every rank was bound to one CPU (run under 'mpiexec -bind-to core')";
  else if (static_cast<int>(cpus->size()) != endpoints)
    why_not = fmt::format("--endpoints {} differs from the {} ranks measured, whose CPUs alone are known", endpoints,
                          cpus->size());
  else if (!(chosen.classes = calibration::fit_cpu_classes(measurements, *cpus, fit_options)))
    why_not = "the ranks do not both share a CPU and span CPUs, so one class of pairs is all there is";
  if (why_not.empty()) {
    chosen.cpu_of_rank = cpus;
    chosen.reason = "per-CPU: ranks bound to shared CPUs; same-CPU and cross-CPU pairs fitted apart";
    return chosen;
  }
  if (model == "per-cpu")
    throw std::invalid_argument(fmt::format("--model per-cpu needs every rank bound to one CPU, some sharing one: {}",
                                            why_not));
  chosen.reason = fmt::format("host-shm: {}", why_not);
  return chosen;
}

void print_waiting(const calibration::WaitingMatesMeasurement& measurement,
                   const std::optional<calibration::WaitingRankCost>& waiting) {
  for (const calibration::WaitingMatesSample& sample : measurement.samples)
    fmt::print("# waiting ranks: ping-pong {}-{} {:>9} B one-way {:.2f} us with the others sleeping, {:.2f} us with "
               "them polling\n",
               measurement.first, measurement.second, sample.bytes, sample.sleeping_one_way_seconds * 1e6,
               sample.polling_one_way_seconds * 1e6);
  if (!waiting) {
    fmt::print("# waiting rank cost 1 (not measured{}): the flow-level model keeps the written share\n",
               measurement.samples.empty() ? "" : ": no rank waits on the pair's CPUs");
    return;
  }
  fmt::print("# waiting rank cost {:.3f}{}: polling / sleeping median {:.3f}, {:.3g} waiting rank(s) per busy one\n",
             waiting->cost, waiting->clamped ? " (clamped to [0, 1])" : "", waiting->median_ratio,
             waiting->waiting_per_busy);
}

// What to pass when the samples of a measurement fit no line (appended to a FitError).
std::string measure_again_hint(const CalibrateArguments& arguments, const std::string& backend) {
  return fmt::format(
      "the machine was probably busy while it measured: run on an idle machine, or measure longer per size "
      "(--min-time, now {} s), fewer pairs ({}), or larger sizes for beta (-e/--maxbytes, now {}; --beta-min-bytes, "
      "now {})",
      arguments.min_seconds_per_size,
      find_backend(backend).ranks_are_threads() ? fmt::format("--ranks, now {}", arguments.ranks) : std::string("mpiexec -n 2"),
      arguments.max_bytes, arguments.beta_min_bytes);
}

std::string refit_hint(const CalibrateArguments& arguments) {
  return fmt::format(
      "these are the samples recorded in {}: measure again (ringlab calibrate without --from-report) on an idle "
      "machine or with a larger --min-time, or refit with other --alpha-max-bytes / --beta-min-bytes (now {} / {})",
      arguments.from_report, arguments.alpha_max_bytes, arguments.beta_min_bytes);
}

// Fits, prints and writes the calibrated topology (rank 0 only). `hint` says what to pass when a
// fit fails.
void fit_and_write(const calibration::Measurements& measurements, int cores, int endpoints,
                   const std::vector<std::string>& rank_cpus, const CalibrateArguments& arguments,
                   nlohmann::json context, const std::string& heading, const std::string& hint) {
  const calibration::FitOptions fit_options{parse_size(arguments.alpha_max_bytes), parse_size(arguments.beta_min_bytes)};
  std::optional<calibration::FittedParameters> fitted;
  std::optional<ChosenModel> chosen;
  try {
    fitted = calibration::fit_parameters(measurements, cores, fit_options);
    chosen = choose_model(measurements, rank_cpus, endpoints, fit_options, arguments.model);
  } catch (const calibration::FitError& error) {
    throw calibration::FitError(fmt::format("calibration: cannot fit {}; {}", error.what(), hint));
  }
  const calibration::FittedParameters& fit = *fitted;
  const ChosenModel& model = *chosen;
  Topology topology = model.cpu_of_rank ? calibration::per_cpu_topology(fit, *model.classes, *model.cpu_of_rank)
                                        : calibration::calibrated_topology(fit, endpoints);
  // How the measured transport hands messages to a receive (a record from before 2026-12-05
  // 15:00 UTC does not say: pieces are then priced as reduced whole).
  if (context.contains("receive_fragment_bytes") && context.at("receive_fragment_bytes").is_number_integer() &&
      context.at("receive_fragment_bytes").get<std::int64_t>() > 0)
    topology.set_receive_fragment_bytes(context.at("receive_fragment_bytes").get<std::int64_t>());
  const std::string preset = calibration::host_shm_preset(fit, endpoints);
  if (!arguments.quiet) {
    fmt::print("{}\n", heading);
    print_summary(measurements, fit, preset);
    const auto print_class = [](const char* name, const calibration::LinearFit& class_fit, int pairs,
                                const std::vector<std::pair<int, int>>& ranks) {
      fmt::print("# {} pairs ({}): alpha {:.3f} us, beta {:.4g} s/B ({:.2f} GB/s){}; fit |residual| median {:.1f} %{}\n",
                 name, pairs, class_fit.intercept * 1e6, class_fit.slope, 1e-9 / class_fit.slope,
                 class_fit.slope_method == calibration::SlopeMethod::theil_sen ? " (Theil-Sen slope)" : "",
                 class_fit.median_abs_residual * 100,
                 class_fit.dropped.empty() ? "" : "; slow outliers left out: " + describe_dropped(class_fit, ranks));
    };
    if (model.classes) {
      print_class("same-CPU", model.classes->same_cpu, model.classes->same_cpu_pairs, model.classes->same_cpu_ranks);
      print_class("cross-CPU", model.classes->cross_cpu, model.classes->cross_cpu_pairs, model.classes->cross_cpu_ranks);
      print_waiting(measurements.waiting_mates, model.classes->waiting);
    }
    fmt::print("# model {}\n", model.reason);
  }
  context["endpoints"] = endpoints;
  context["preset"] = preset;
  context["model"] = model.reason;
  if (model.classes) context["cpu_classes"] = calibration::cpu_classes_record(*model.classes);
  context["alpha_max_bytes"] = fit_options.alpha_max_bytes;
  context["beta_min_bytes"] = fit_options.beta_min_bytes;
  nlohmann::json document = to_json(topology);
  // Written only if it reads back: a fit outside the physical ranges (docs/topology-format.md,
  // "Ranges") would otherwise be refused only when the file is used.
  try {
    topology_from_json(document);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("the calibrated topology is not usable: {}; nothing was written to '{}'. "
                                            "The measurement is off: calibrate again on an idle machine",
                                            error.what(), arguments.json));
  }
  document["calibration"] = calibration::calibration_record(measurements, fit, context);
  io::write_json_file(arguments.json, document, 1, arguments.standard_output);
  if (!arguments.quiet && !io::is_standard_output(arguments.json))
    fmt::print("# calibrated topology written to {}\n", arguments.json);
}

// --from-report: the measurements of a calibration record refitted; its context kept, with where
// and when it was refitted.
int refit_from_report(const CalibrateArguments& arguments) {
  const calibration::RecordedCalibration recorded = calibration::read_calibration_file(arguments.from_report);
  const nlohmann::json& old_record = recorded.record;
  nlohmann::json context = nlohmann::json::object();
  for (const char* key : {"tool", "created", "command", "backend", "transport", "receive_fragment_bytes",
                          "ranks_measured", "machine", "placement", "rank_cpus"})
    if (old_record.contains(key)) context[key] = old_record.at(key);
  context["refit"] = {{"from_report", arguments.from_report},
                      {"created", report::utc_timestamp()},
                      {"command", arguments.command_line},
                      {"note", "measurements copied from from_report; only the fits are new"}};
  const int endpoints = arguments.endpoints.value_or(recorded.endpoints);
  fit_and_write(recorded.measurements, recorded.cores, endpoints, recorded.rank_cpus, arguments, std::move(context),
                fmt::format("# ringlab calibrate --from-report {}: refit of {} pair(s), {} cores, no measurement",
                            arguments.from_report, recorded.measurements.pairs.size(), recorded.cores),
                refit_hint(arguments));
  return 0;
}

int run_calibrate(Communicator& comm, const CalibrateArguments& arguments, const std::vector<std::int64_t>& sizes,
                  const std::string& backend, const std::optional<FaultSpec>& fault_spec) {
  if (comm.size() < 2)
    throw std::invalid_argument(fmt::format(
        "calibration needs at least 2 ranks to measure transfers, got {}; run 'mpiexec -n 2 ringlab calibrate ...' or "
        "'ringlab calibrate --backend threads --ranks 2 ...'",
        comm.size()));
  // Refused before measuring: each rank knows whether it is bound (the rest is known on rank 0
  // only after the measurement, where choose_model says it).
  if (const report::RankCpus own = report::this_thread_cpus(); arguments.model == "per-cpu" && own.count != 1)
    throw std::invalid_argument(fmt::format(
        "--model per-cpu needs every rank bound to one CPU, but rank {} may run on CPUs {}; run under 'mpiexec "
        "-bind-to core' (the threads backend does not bind)",
        comm.rank(), own.list));
  const report::MachineInfo machine =
      report::describe_machine(!find_backend(backend).ranks_are_threads() ? std::optional(built_mpi_library_name()) : std::nullopt);
  const std::vector<report::RankCpus> rank_cpus = during_setup("exchanging the ranks' CPUs", arguments.timeout_seconds, [&] {
    return bench::gather_rank_cpus(comm, Clock::now() + timeout_from_seconds(arguments.timeout_seconds));
  });
  FaultInjector fault(fault_spec);
  calibration::MeasureOptions options{sizes, arguments.min_seconds_per_size, arguments.timeout_seconds, &fault};
  calibration::Measurements measurements;
  measurements.pairs = calibration::measure_ping_pong(comm, options);
  measurements.concurrent = calibration::measure_concurrent(
      comm, machine.cores, streaming_sizes(sizes, parse_size(arguments.beta_min_bytes)), arguments.timeout_seconds);
  measurements.reduce = calibration::measure_reduce(comm, calibration::reduce_sizes(), arguments.timeout_seconds);
  measurements.reduce_by_type_op = calibration::measure_reduce_by_type_op(comm, arguments.timeout_seconds);
  measurements.reduce_by_form = calibration::measure_reduce_by_form(comm, machine.cores, arguments.timeout_seconds);
  measurements.waiting_mates = calibration::measure_waiting_mates(comm, options, waiting_mates_sizes(sizes));
  if (comm.rank() != 0) return 0;

  const int endpoints = arguments.endpoints.value_or(comm.size());
  const std::string placement = report::describe_placement(rank_cpus);
  nlohmann::json context = {{"tool", "ringlab calibrate"},
                            {"created", report::utc_timestamp()},
                            {"command", arguments.command_line},
                            {"backend", backend},
                            {"transport", comm.transport_description()},
                            {"receive_fragment_bytes",
                             comm.receive_reduce() != nullptr ? comm.receive_reduce()->receive_fragment_bytes() : 0},
                            {"ranks_measured", comm.size()},
                            {"machine", report::to_json(machine)},
                            {"placement", placement}};
  const std::vector<std::string> cpu_lists = report::cpu_lists(rank_cpus);
  context["rank_cpus"] = cpu_lists;
  fit_and_write(measurements, machine.cores, endpoints, cpu_lists, arguments, context,
                fmt::format("# ringlab calibrate: {} ranks, backend {}, transport {}, {} cores\n# placement {}",
                            comm.size(), backend, comm.transport_description(), machine.cores, placement),
                measure_again_hint(arguments, backend));
  return 0;
}

}  // namespace

CommandRunner add_calibrate_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<CalibrateArguments>();
  arguments->command_line = command_line;
  CLI::App* command = app.add_subcommand(
      "calibrate", "Measure ping-pong latency and bandwidth between rank pairs, concurrent transfers and the reduce "
                   "kernel (mpiexec -n N), fit alpha, beta, gamma and the host-shm memory bandwidth, and write a "
                   "calibrated ringlab.topology/1 file. Never times an all-reduce.");
  command->add_option("--json", arguments->json, "Calibrated topology file to write (- = standard output)")
      ->required()
      ->check(output_path());
  command->add_flag("--force", arguments->force, "Overwrite an existing --json file");
  command->add_option("--from-report", arguments->from_report,
                      "Measure nothing: refit the samples of this calibration report (a file ringlab calibrate wrote) "
                      "and write the new topology to --json");
  command->add_option("-b,--minbytes", arguments->min_bytes, "Smallest ping-pong message")->capture_default_str();
  command->add_option("-e,--maxbytes", arguments->max_bytes, "Largest ping-pong message (at most 1G)")
      ->capture_default_str();
  command->add_option("-f,--stepfactor", arguments->step_factor, "Size multiplier between ping-pong sizes")
      ->capture_default_str();
  command->add_option("--endpoints", arguments->endpoints,
                      "Processes the written topology models (default: the ranks measured)");
  command->add_option("--alpha-max-bytes", arguments->alpha_max_bytes, "Sizes up to this fix alpha (latency)")
      ->capture_default_str();
  command->add_option("--beta-min-bytes", arguments->beta_min_bytes, "Sizes from this up fix beta (seconds per byte)")
      ->capture_default_str();
  command->add_option("--min-time", arguments->min_seconds_per_size, "Seconds of round trips per pair and size")
      ->check(number_in({0, 3600, "s", true}))
      ->capture_default_str();
  command->add_option("--model", arguments->model,
                      "Topology written: host-shm (one bandwidth for every pair), per-cpu (ranks bound to shared "
                      "CPUs: same-CPU and cross-CPU pairs apart), or auto (per-cpu when it applies)")
      ->check(CLI::IsMember({"auto", "host-shm", "per-cpu"}))
      ->capture_default_str();
  command->add_option("--backend", arguments->backend, "auto | mpi | threads")->capture_default_str();
  command->add_option("--ranks", arguments->ranks, "Ranks for the threads backend")->capture_default_str();
  add_timeout_option(*command, arguments->timeout_seconds);
  command->add_flag("-q,--quiet", arguments->quiet, "Print nothing but errors");
  return [arguments] {
    // Everything that can be refused is refused here, before any rank starts.
    if (arguments->endpoints && (*arguments->endpoints < 1 || *arguments->endpoints > max_topology_nodes))
      throw std::invalid_argument(fmt::format(
          "--endpoints {} is outside [1, {}]; give the number of processes the topology models, or leave it out for "
          "the ranks measured",
          *arguments->endpoints, max_topology_nodes));
    if (!arguments->from_report.empty()) {
      if (parse_size(arguments->alpha_max_bytes) < 0 || parse_size(arguments->beta_min_bytes) < 0)
        throw std::invalid_argument("--alpha-max-bytes and --beta-min-bytes must not be negative");
      check_output_option(arguments->json, arguments->force, "--json");
      const io::StandardOutputForData data_output(to_standard_output({{"--json", &arguments->json}}));
      arguments->standard_output = data_output.descriptor();
      return refit_from_report(*arguments);
    }
    const std::string backend = resolve_backend(arguments->backend);
    const int ranks = expected_ranks(backend, arguments->ranks);
    if (ranks < 2)
      throw std::invalid_argument(fmt::format(
          "calibration needs at least 2 ranks to measure transfers, got {}; run 'mpiexec -n 2 ringlab calibrate ...' "
          "or 'ringlab calibrate --backend threads --ranks 2 ...'",
          ranks));
    checked_timeout(arguments->timeout_seconds);
    if (!(arguments->min_seconds_per_size > 0) || !std::isfinite(arguments->min_seconds_per_size))
      throw std::invalid_argument("--min-time must be a positive finite number of seconds");
    const std::vector<std::int64_t> sizes = ping_pong_sizes(*arguments);
    if (parse_size(arguments->alpha_max_bytes) < 0 || parse_size(arguments->beta_min_bytes) < 0)
      throw std::invalid_argument("--alpha-max-bytes and --beta-min-bytes must not be negative");
    check_output_option(arguments->json, arguments->force, "--json");
    const std::optional<FaultSpec> fault = fault_from_environment();
    const io::StandardOutputForData data_output(to_standard_output({{"--json", &arguments->json}}));
    arguments->standard_output = data_output.descriptor();
    return run_ranks(backend, arguments->ranks, JobSetup{checked_timeout(arguments->timeout_seconds), fault},
                     [&](Communicator& comm) {
      return run_calibrate(comm, *arguments, sizes, backend, fault);
    });
  };
}

}  // namespace ringlab::cli
