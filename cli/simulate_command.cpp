// `ringlab simulate`: predicts the bench table (and its ringlab.bench/1 report, kind "predicted")
// with the flow-level or the closed-form model on a topology, and writes a Chrome/Perfetto trace of
// one flow-level simulation (docs/simulator.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "cli/algorithm_options.hpp"
#include "cli/checked_option.hpp"
#include "collectives/algorithms/algorithm.hpp"
#include "cli/cli_util.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"
#include "simulator/flow_trace.hpp"
#include "simulator/flow_work.hpp"
#include "simulator/link_traffic.hpp"
#include "simulator/lower_bound.hpp"
#include "simulator/predictor.hpp"
#include "cli/commands.hpp"
#include "collectives/execute.hpp"
#include "report/machine_info.hpp"
#include "io/output_file.hpp"
#include "report/bandwidth.hpp"
#include "report/nccl_tests_format.hpp"
#include "bench/src/bench_report.hpp"
#include "report/result_row.hpp"
#include "cli/sweep_arguments.hpp"
#include "cli/progress_line.hpp"
#include "cli/time_limit.hpp"
#include "simulator/nccl_protocol.hpp"
#include "topology/topology_io.hpp"
#include "simulator/type_op_gamma.hpp"
#include "simulator/finite_prediction.hpp"
#include "simulator/workload_prediction.hpp"
#include "workload/workload_report.hpp"

namespace ringlab::cli {

namespace {

struct SimulateArguments {
  SweepArguments sweep;
  std::string topology;
  std::optional<int> ranks;  // not given: the topology's endpoint count
  std::optional<double> gamma_seconds_per_byte;  // empty: the topology's, else the default
  std::string op = "sum";  // the reduction priced: its gamma (type_op_gamma.hpp)
  std::string model = "flow-level";
  std::string segment_bytes = "1M";  // the bench's default
  std::string trace;
  std::string emulate;  // "nccl": print nccl-tests' all_reduce_perf table instead of ringlab's
  bool algorithms_given = false;  // --algo was given (else --emulate nccl prices ring)
  std::string protocol = "none";  // NCCL protocol costs: none, simple, ll, ll128, auto (nccl_protocol.hpp)
  bool link_stats = false;
  std::string command_line;
  // --workload: one training iteration instead of the size sweep
  std::string workload;
  std::string workload_mode = "both";
  int global_batch = 32;
  std::string bucket = "25M";
  std::string profile;
  double device_tflops = 0;
  double time_limit_seconds = default_time_limit_seconds;
  double progress_after_seconds = 2;  // a progress line once the sweep has run this long
};

// The sweep options of a prediction: one "iteration", nothing checked (#wrong is N/A), the type
// and op priced (their gamma: type_op_gamma.hpp); segments as given for the flow-level model,
// whole transfers for the closed form (which does not model them). mpi-native has no schedule:
// "all" leaves it out, naming it adds a note.
bench::BenchOptions to_options(const SimulateArguments& given, std::vector<std::string>& notes) {
  SimulateArguments arguments = given;
  if (!arguments.emulate.empty()) {  // nccl-tests' defaults and type names (-d float)
    if (!arguments.algorithms_given) arguments.sweep.algorithms = "ring";
    if (const std::string type = report::ringlab_type_name(arguments.sweep.type); !type.empty()) arguments.sweep.type = type;
  }
  bench::BenchOptions options;
  apply_sweep_arguments(arguments.sweep, options);
  if (arguments.op == "all")
    throw std::invalid_argument("-o all (every op in turn) is a `ringlab bench` option; give one op here, e.g. -o sum");
  options.op = parse_reduce_op(arguments.op);
  options.iterations = 1;
  options.warmup_iterations = 0;
  options.check = false;
  const std::int64_t segment_bytes = parse_segment_bytes(arguments.segment_bytes);
  options.segment_bytes = simulator::find_model(arguments.model).cuts_segments ? static_cast<std::size_t>(segment_bytes) : 0;
  std::vector<std::string> valid;
  for (const AlgorithmInfo& info : algorithms()) valid.emplace_back(info.name);
  std::vector<std::string> listed = valid;  // "all": the algorithms with a schedule
  if (arguments.sweep.algorithms != "all") {
    std::vector<std::string> known = valid;
    known.emplace_back(mpi_native);
    listed = parse_name_list(arguments.sweep.algorithms, known);
  }
  for (const std::string& name : listed) {
    if (std::find(valid.begin(), valid.end(), name) != valid.end())
      options.algorithms.push_back(name);
    else
      notes.push_back(fmt::format("{} is not simulated: it has no schedule (the MPI library picks its algorithm)", name));
  }
  if (options.algorithms.empty()) throw std::invalid_argument("--algo names no algorithm with a schedule to simulate");
  options.baseline = options.algorithms.front();
  return options;
}

int check_ranks(const SimulateArguments& arguments, const Topology& topology) {
  if (!arguments.ranks) return topology.num_endpoints();
  if (*arguments.ranks != topology.num_endpoints())
    throw std::invalid_argument(fmt::format("--ranks {} does not match topology '{}', which has {} endpoints (ranks); "
                                            "omit --ranks or pick a topology of {} endpoints",
                                            *arguments.ranks, topology.name(), topology.num_endpoints(), *arguments.ranks));
  return *arguments.ranks;
}

void check_trace_request(const SimulateArguments& arguments, const simulator::ModelInfo& model,
                         const bench::BenchOptions& options, const std::vector<bench::SweepSize>& sizes) {
  if (arguments.trace.empty()) return;
  if (!model.flows)
    throw std::invalid_argument(fmt::format("--trace records a flow-level simulation; drop --model {}", model.name));
  if (options.algorithms.size() != 1 || sizes.size() != 1)
    throw std::invalid_argument(fmt::format(
        "--trace records one simulation: give one algorithm (--algo NAME) and one size (-b SIZE -e SIZE); this run "
        "has {} algorithms and {} sizes",
        options.algorithms.size(), sizes.size()));
  check_output_option(arguments.trace, arguments.sweep.force, "--trace");
}

void print_simulate_header(const bench::RunDescription& run, const simulator::ModelInfo& model,
                           const bench::BenchOptions& options, const Topology& topology) {
  fmt::print("# ringlab simulate: {}\n", run.command);
  fmt::print("# model {}: {}{} | gamma {:g} s/B\n", model.name, model.description,
             model.cuts_segments ? fmt::format(" | segments {} B", options.segment_bytes) : std::string(),
             run.model->gamma_seconds_per_byte);
  fmt::print("# topology {} | {} ranks | {} switches | {} links\n", topology.name(), run.nranks,
             topology.num_switches(), topology.num_links());
  fmt::print("# sizes {}..{} B | type {} | op {} | predicted: {}, #wrong N/A\n", options.min_bytes, options.max_bytes,
             name_of(options.type), name_of(options.op),
             topology.footprint_curves().empty() ? "in-place = out-of-place (the topology has no footprint curves)"
                                                 : "in-place at its own footprint (one buffer a rank)");
  for (const std::string& note : run.notes) fmt::print("# note: {}\n", note);
  bench::print_column_titles(stdout);
}

report::ResultRow predicted_row(const std::string& algorithm, const bench::SweepSize& size, double seconds,
                               bool in_place, int nranks) {
  report::ResultRow row;
  row.algorithm = algorithm;
  row.size_bytes = size.bytes;
  row.count = size.count;
  row.in_place = in_place;
  const double us = seconds * 1e6;
  row.time = {us, us, us, us, us, 0.0};
  row.algbw_gbps = report::algbw_gbps(size.bytes, seconds);
  row.busbw_gbps = report::busbw_gbps(row.algbw_gbps, nranks);
  row.wrong = -1;
  return row;
}

// The busiest resource of one flow-level prediction, as a note line.
std::string busiest_note(const std::string& algorithm, std::int64_t bytes, const simulator::FlowPrediction& predicted,
                         const Topology& topology) {
  const simulator::ResourceLoad* busiest = nullptr;
  for (const simulator::ResourceLoad& load : predicted.loads)
    if (!busiest || load.busy_seconds > busiest->busy_seconds) busiest = &load;
  if (!busiest) return fmt::format("{} at {} B: no link carried a byte", algorithm, bytes);
  const std::string where = busiest->is_switch ? fmt::format("switch {}", topology.node(busiest->from).name)
                                               : fmt::format("link {} -> {}", topology.node(busiest->from).name,
                                                             topology.node(busiest->to).name);
  const double total = predicted.prediction.seconds;
  return fmt::format("{} at {} B: busiest {}, busy {:.1f} % of the time, {:.1f} % of its capacity used", algorithm,
                     bytes, where, total > 0 ? 100 * busiest->busy_seconds / total : 0.0, 100 * busiest->utilisation);
}

// Refuses a flow-level sweep whose flows (segments sent, every rank simulated, step, size,
// algorithm and placement) exceed simulator::max_simulated_flows, before the first prediction.
void check_flow_work(const std::vector<Schedule>& schedules, const std::vector<std::string>& names,
                     const std::vector<bench::SweepSize>& sizes, const bench::BenchOptions& options,
                     int placements, const simulator::Predictor& model) {
  double total = 0;
  double heaviest = 0;
  std::string heaviest_name;
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    double flows = 0;
    for (const bench::SweepSize& size : sizes)
      flows += placements *
               simulator::flow_level_flows(schedules[i], size.count, options.type,
                                           static_cast<std::int64_t>(options.segment_bytes)) /
               model.ranks_per_simulated_rank(schedules[i], size.count);
    total += flows;
    if (flows > heaviest) {
      heaviest = flows;
      heaviest_name = names[i];
    }
  }
  if (total > simulator::max_simulated_flows)
    throw std::invalid_argument(fmt::format(
        "the flow-level model would simulate about {:.2g} flows on {} ranks ({:.2g} of them for {}); the limit is "
        "{:.2g}: use --model closed-form, or fewer algorithms (--algo), sizes (-b/-e) or ranks (a smaller topology), "
        "or a larger --segment-bytes",
        total, schedules.empty() ? 0 : schedules.front().nranks, heaviest, heaviest_name,
        simulator::max_simulated_flows));
}

// Records that `bytes` chose `protocol`: a new entry where the choice changes from the size before.
void choose_protocol(std::vector<std::pair<std::int64_t, std::string_view>>& chosen, std::int64_t bytes,
                     std::string_view protocol) {
  if (!chosen.empty() && chosen.back().first == bytes) chosen.pop_back();
  if (chosen.empty() || chosen.back().second != protocol) chosen.emplace_back(bytes, protocol);
}

int run_simulate(const SimulateArguments& arguments, TimeLimit& time_limit) {
  // Everything that can be refused is refused before the first prediction.
  const Topology topology = load_topology(arguments.topology);
  const int nranks = check_ranks(arguments, topology);
  const simulator::ModelInfo& model_info = simulator::find_model(arguments.model);  // throws listing the models
  std::vector<std::string> notes;
  const bench::BenchOptions options = to_options(arguments, notes);
  const std::vector<bench::SweepSize> sizes = bench::sweep_sizes(options, &notes);
  check_output_option(arguments.sweep.json, arguments.sweep.force, "--json");
  check_trace_request(arguments, model_info, options, sizes);
  const io::StandardOutputForData data_output(
      to_standard_output({{"--json", &arguments.sweep.json}, {"--trace", &arguments.trace}}));
  simulator::TypeOpPricing pricing(topology, arguments.gamma_seconds_per_byte, print_warning);
  const simulator::TypeOpPricing::Priced priced = pricing.at(options.type, options.op);
  const double gamma = priced.gamma_seconds_per_byte;
  // One priced topology per protocol (--protocol; none: the topology as it is), each with its
  // model (make_model), with its link loads and timelines where it simulates flows.
  const std::vector<const simulator::NcclProtocol*> protocols = simulator::protocols_for(arguments.protocol);
  if (protocols.size() > 1 && !arguments.trace.empty())
    throw std::invalid_argument("--trace prices one protocol: with it, pick --protocol simple, ll or ll128 instead of auto");
  std::vector<Topology> protocol_topologies;
  protocol_topologies.reserve(std::max<std::size_t>(1, protocols.size()));
  if (protocols.empty()) protocol_topologies.push_back(priced.topology);
  for (const simulator::NcclProtocol* protocol : protocols)
    protocol_topologies.push_back(simulator::with_nccl_protocol(priced.topology, *protocol));
  // Progress within one flow-level prediction, for the progress line (set once it exists).
  std::function<void(double)> progress_within;
  const auto report_within = [&progress_within](double fraction) {
    if (progress_within) progress_within(fraction);
  };
  std::vector<simulator::Predictor> models;
  for (const Topology& protocol_topology : protocol_topologies)
    models.push_back(simulator::make_model(model_info.name, protocol_topology, gamma,
                                           static_cast<std::int64_t>(options.segment_bytes), !arguments.trace.empty(),
                                           report_within));
  const simulator::Predictor& model = models.front();
  std::vector<Schedule> schedules;
  const bool rings_priced = std::find(options.algorithms.begin(), options.algorithms.end(), "nccl_ring") !=
                           options.algorithms.end();
  const AlgorithmOptions algorithm_options =
      with_topology_groups(options.algorithm_options, topology, rings_priced ? &notes : nullptr);
  // Where the group size came from, for the notes of the algorithms that group ranks.
  const std::string_view group_source = options.algorithm_options.group_size > 0 ? "--group-size"
                                        : algorithm_options.group_size > 0      ? "the topology's ranks per node"
                                                                                : "no --group-size, none from the topology";
  for (const std::string& name : options.algorithms) {
    schedules.push_back(make_schedule(name, Collective::allreduce, nranks, algorithm_options));
    if (name == "hierarchical")
      notes.push_back(fmt::format("hierarchical: groups of {} ranks ({}), {} across them",
                                  hierarchical_group_size(nranks, algorithm_options.group_size), group_source,
                                  algorithm_options.inner));
    if (name == "nccl_ring" && !algorithm_options.node_rings.empty())
      notes.push_back(fmt::format("nccl_ring: nodes of {} ranks (its rings)", algorithm_options.node_rings.front().size()));
    else if (name == "nccl_ring" || name == "nccl_tree")  // no group size: one node
      notes.push_back(fmt::format(
          "{}: nodes of {} ranks ({})", name,
          algorithm_options.group_size > 0 ? hierarchical_group_size(nranks, algorithm_options.group_size) : nranks,
          group_source));
  }
  if (model.flows)  // the model's own orbits: its predictions reuse them
    check_flow_work(schedules, options.algorithms, sizes, options,
                    topology.footprint_curves().empty() && !topology.copy_cost_ratio() ? 1 : 2, model);
  // Each schedule is priced at every size: prepared once where the model can (the closed form
  // packs explicit ones).
  std::vector<std::vector<simulator::ScheduleSeconds>> prepared(models.size());
  if (model.prepare)
    for (std::size_t m = 0; m < models.size(); ++m)
      for (const Schedule& schedule : schedules) prepared[m].push_back(models[m].prepare(schedule));
  // Per algorithm, the protocol each size chose (--protocol auto: the cheapest, as NCCL's tuner picks).
  std::vector<std::vector<std::pair<std::int64_t, std::string_view>>> chosen(schedules.size());

  bench::RunDescription run{arguments.command_line, "simulator",
                            fmt::format("{} model on topology {}", arguments.model, topology.name()), nranks,
                            report::describe_machine(std::nullopt), std::move(notes),
                            bench::ModelDescription{arguments.model, arguments.topology, gamma}, {}, {}, {}};
  if (!protocols.empty())
    run.notes.push_back(fmt::format("NCCL protocol costs ({}): link bandwidth x fraction, per-hop and per-call "
                                    "latencies from NCCL's src/graph/tuning.cc",
                                    arguments.protocol));
  const bool ringlab_table = !options.quiet && arguments.emulate.empty();
  if (ringlab_table) print_simulate_header(run, model_info, options, topology);
  std::optional<simulator::AllreduceLowerBound> lower_bound;
  std::optional<simulator::LinkTrafficCounter> link_counter;
  if (arguments.link_stats) {
    lower_bound = simulator::allreduce_lower_bound(priced.topology);
    link_counter.emplace(priced.topology);
  }
  std::vector<report::ResultRow> rows;
  std::vector<std::string> busiest;  // per algorithm, at the largest size
  // A prediction's cost grows with its bytes for the flow-level model (pieces), hardly for the closed form.
  const auto weight_of = [&](const bench::SweepSize& size) { return model_info.cuts_segments ? 4096.0 + static_cast<double>(size.bytes) : 1.0; };
  double total_weight = 0;
  for (const bench::SweepSize& size : sizes) total_weight += weight_of(size) * static_cast<double>(schedules.size());
  ProgressLine progress("simulate", total_weight, static_cast<int>(sizes.size() * schedules.size()),
                        arguments.progress_after_seconds, !options.quiet);
  double unit_weight = 0;     // of the (size, algorithm) being priced
  double models_before = 0;   // of its models (one per protocol) already priced, over their number
  progress_within = [&](double fraction) {
    progress.within(unit_weight, models_before + fraction / static_cast<double>(models.size()));
  };
  for (const bench::SweepSize& size : sizes) {
    std::vector<report::ResultRow> size_rows;
    for (std::size_t i = 0; i < schedules.size(); ++i) {
      double out_of_place_seconds = 0;
      for (const simulator::Placement placement : {simulator::Placement::out_of_place, simulator::Placement::in_place}) {
        const bool in_place = placement == simulator::Placement::in_place;
        double seconds = 0;
        // The placement changes nothing without footprint curves, nor, for a model that prices the
        // executor's scratch copies, without a copy cost (which receives go to scratch depends on it).
        if (in_place && topology.footprint_curves().empty() &&
            !(model_info.cuts_segments && topology.copy_cost_ratio())) {
          seconds = out_of_place_seconds;
        } else if (model.flows) {
          std::optional<simulator::FlowPrediction> predicted;
          unit_weight = weight_of(size);
          for (std::size_t m = 0; m < models.size(); ++m) {
            models_before = static_cast<double>(m) / static_cast<double>(models.size());
            simulator::FlowPrediction candidate = models[m].flows(schedules[i], size.count, options.type, placement);
            candidate.prediction.seconds += protocols.empty() ? 0 : protocols[m]->base_latency_seconds;
            if (!predicted || candidate.prediction.seconds < predicted->prediction.seconds) {
              predicted = std::move(candidate);
              if (!in_place && !protocols.empty()) choose_protocol(chosen[i], size.bytes, protocols[m]->name);
            }
          }
          seconds = predicted->prediction.seconds;
          if (&size == &sizes.back() && !in_place)
            busiest.push_back(busiest_note(options.algorithms[i], size.bytes, *predicted, protocol_topologies.front()));
          if (!arguments.trace.empty() && !in_place) {
            const nlohmann::json context = {{"command", arguments.command_line}, {"model", arguments.model},
                                            {"algorithm", options.algorithms[i]}, {"bytes", size.bytes},
                                            {"count", size.count}, {"datatype", name_of(options.type)},
                                            {"op", name_of(options.op)},
                                            {"placement", name_of(placement)},
                                            {"topology", arguments.topology}, {"segment_bytes", options.segment_bytes},
                                            {"gamma_seconds_per_byte", gamma}};
            const auto writing = time_limit.hold_while_writing();
            io::write_json_file(arguments.trace, simulator::flow_trace_json(*predicted, topology, context), 1,
                                data_output.descriptor());
          }
        } else {
          for (std::size_t m = 0; m < models.size(); ++m) {
            const double candidate =
                (model.prepare ? prepared[m][i](size.count, options.type, placement)
                               : models[m].seconds(schedules[i], size.count, options.type, options.op,
                                                   static_cast<std::int64_t>(options.segment_bytes), placement)) +
                (protocols.empty() ? 0 : protocols[m]->base_latency_seconds);
            if (m == 0 || candidate < seconds) {
              seconds = candidate;
              if (!in_place && !protocols.empty()) choose_protocol(chosen[i], size.bytes, protocols[m]->name);
            }
          }
        }
        seconds = simulator::finite_prediction(
            seconds, fmt::format("{} at {} B, {}", options.algorithms[i], size.bytes, name_of(placement)));
        if (!in_place) out_of_place_seconds = seconds;
        size_rows.push_back(predicted_row(options.algorithms[i], size, seconds, in_place, nranks));
        if (lower_bound) {  // the same for both placements: the sends and routes do not change
          report::ResultRow& row = size_rows.back();
          if (in_place) {
            const report::ResultRow& out_of_place = size_rows[size_rows.size() - 2];
            row.total_link_bytes = out_of_place.total_link_bytes;
            row.busiest_link_bytes = out_of_place.busiest_link_bytes;
          } else {
            const simulator::LinkTraffic traffic = link_counter->count(schedules[i], size.count, options.type);
            row.total_link_bytes = traffic.total_link_bytes;
            row.busiest_link_bytes = traffic.busiest_link_bytes;
          }
          row.lower_bound_us = lower_bound->seconds(static_cast<double>(size.bytes)) * 1e6;
        }
      }
      progress.done(weight_of(size));
    }
    if (ringlab_table) bench::print_size_rows(stdout, size_rows, options);
    rows.insert(rows.end(), size_rows.begin(), size_rows.end());
  }
  if (ringlab_table) {
    bench::print_footer(stdout, rows, options);
    for (const std::string& line : busiest) fmt::print("# {}\n", line);
  }
  for (std::size_t i = 0; i < schedules.size() && !protocols.empty(); ++i) {
    std::string line = fmt::format("{}: protocol", options.algorithms[i]);
    for (const auto& [bytes, name] : chosen[i]) line += fmt::format(" {} from {} B,", name, bytes);
    line.pop_back();
    if (ringlab_table) fmt::print("# {}\n", line);
    run.notes.push_back(line);
  }
  const nlohmann::json report = bench::make_report(run, options, rows, true);
  if (!options.quiet && !arguments.emulate.empty()) {
    fmt::print("{}", report::nccl_tests_preamble(report, false));
    for (const std::string& note : run.notes) fmt::print("# note: {}\n", note);
    fmt::print("{}", report::nccl_tests_text(report));
  }
  if (!arguments.sweep.json.empty()) {
    const auto writing = time_limit.hold_while_writing();
    io::write_json_file(arguments.sweep.json, report, 1, data_output.descriptor());
    if (!options.quiet && !io::is_standard_output(arguments.sweep.json))
      fmt::print("# report written to {}\n", arguments.sweep.json);
  }
  if (!arguments.trace.empty() && !options.quiet && !io::is_standard_output(arguments.trace))
    fmt::print("# trace written to {}\n", arguments.trace);
  return 0;
}

// --workload: the iteration plan of `ringlab replay`, priced per algorithm and mode.
int run_workload_simulate(const SimulateArguments& arguments, TimeLimit& time_limit) {
  const training::Workload workload = training::make_workload(arguments.workload);
  const Topology topology = load_topology(arguments.topology);
  const int nranks = check_ranks(arguments, topology);
  std::vector<training::ReplayMode> modes = {training::ReplayMode::dp, training::ReplayMode::hybrid};
  if (arguments.workload_mode != "both") modes = {training::parse_replay_mode(arguments.workload_mode)};
  const std::vector<std::string> algorithms = parse_name_list(arguments.sweep.algorithms, algorithm_names());
  if ((arguments.device_tflops > 0) == !arguments.profile.empty())
    throw std::invalid_argument("--workload needs the compute profile: give --profile FILE.json (ringlab.profile/1, "
                                "e.g. from ringlab replay --save-profile) or --device-tflops X, one of them");
  const training::ComputeProfile profile = arguments.device_tflops > 0
                                               ? training::profile_from_throughput(workload, arguments.device_tflops)
                                               : training::read_profile_file(arguments.profile, workload);
  const std::size_t bucket_bytes = static_cast<std::size_t>(parse_size(arguments.bucket));
  std::vector<training::IterationPlan> plans;
  for (training::ReplayMode mode : modes)
    plans.push_back(training::make_iteration_plan(workload, profile, mode, nranks, arguments.global_batch, bucket_bytes));
  check_output_option(arguments.sweep.json, arguments.sweep.force, "--json");
  const io::StandardOutputForData data_output(to_standard_output({{"--json", &arguments.sweep.json}}));
  // The plan's collectives are float32 sums (training::gradient_type, gradient_op): priced with that pair's gamma.
  simulator::TypeOpPricing pricing(topology, arguments.gamma_seconds_per_byte, print_warning);
  const simulator::TypeOpPricing::Priced priced = pricing.at(training::gradient_type, training::gradient_op);
  const double gamma = priced.gamma_seconds_per_byte;
  const std::int64_t segment_bytes =
      simulator::find_model(arguments.model).cuts_segments ? parse_segment_bytes(arguments.segment_bytes) : 0;
  simulator::WorkloadPredictor predictor(priced.topology, arguments.model, gamma, segment_bytes);

  training::WorkloadRunDescription run;
  run.predicted = true;
  run.command = arguments.command_line;
  run.nranks = nranks;
  run.machine = report::describe_machine(std::nullopt);
  run.execution = {{"model", arguments.model},
                   {"topology", arguments.topology},
                   {"gamma_seconds_per_byte", gamma},
                   {"segment_bytes", segment_bytes}};
  run.workload = &workload;
  run.profile = &profile;
  run.global_batch = arguments.global_batch;
  run.bucket_bytes = bucket_bytes;
  std::vector<training::ModeResult> results;
  for (const std::string& algorithm : algorithms)
    for (const training::IterationPlan& plan : plans) {
      training::ModeResult result{algorithm, plan.mode, true, "", {}, 0, plan.compute_seconds(), {}, {}, {}, {}, {}};
      if (!simulator::algorithm_serves(algorithm, plan.mode)) {
        result.available = false;
        result.note = fmt::format("{} has no reduce_scatter or allgather schedule; hybrid needs both", algorithm);
      } else {
        const simulator::IterationPrediction predicted = predictor.predict(plan, algorithm);
        result.mean = {predicted.iteration_seconds, predicted.compute_seconds, predicted.communication_seconds, 0.0};
        result.median_iteration_seconds = predicted.iteration_seconds;
        result.allreduce = plan.totals(training::PhaseKind::allreduce);
        result.allgather = plan.totals(training::PhaseKind::allgather);
        result.reduce_scatter = plan.totals(training::PhaseKind::reduce_scatter);
      }
      results.push_back(result);
    }
  if (!arguments.sweep.quiet) {
    training::print_workload_header(stdout, run);
    training::print_workload_table(stdout, results);
  }
  if (!arguments.sweep.json.empty()) {
    const auto writing = time_limit.hold_while_writing();
    io::write_json_file(arguments.sweep.json, training::make_workload_report(run, results), 1, data_output.descriptor());
    if (!arguments.sweep.quiet && !io::is_standard_output(arguments.sweep.json))
      fmt::print("# report written to {}\n", arguments.sweep.json);
  }
  return 0;
}

}  // namespace

CommandRunner add_simulate_command(CLI::App& app, const std::string& command_line) {
  auto arguments = std::make_shared<SimulateArguments>();
  arguments->command_line = command_line;
  CLI::App* command = app.add_subcommand(
      "simulate", "Predict the bench table on a topology with the flow-level model (flows share links max-min "
                  "fairly) or the closed form (alpha-beta-gamma along each route, no contention); --json writes a "
                  "ringlab.bench/1 report of kind predicted, --trace a Chrome/Perfetto timeline.");
  command->add_option("--topology", arguments->topology, "Preset (see 'ringlab topology show --help') or JSON file")
      ->required();
  add_sweep_options(*command, arguments->sweep);
  command->add_option("--ranks", arguments->ranks, "Ranks; must equal the topology's endpoints (default: that count)");
  command->add_option("-o,--op", arguments->op,
                      "sum|prod|min|max|avg: the reduction priced, at the topology's gamma for -d/-o "
                      "(gamma_by_type_op, else its float32/sum gamma with a warning)")
      ->capture_default_str();
  command->add_option("--gamma", arguments->gamma_seconds_per_byte,
                      fmt::format("Reduction cost, seconds per byte reduced, for every type and op (default: the "
                                  "topology file's gamma for -d/-o, else {:g})",
                                  simulator::default_gamma_seconds_per_byte));
  command->add_option("--model", arguments->model, "flow-level or closed-form")->capture_default_str();
  command->add_option("--segment-bytes", arguments->segment_bytes,
                      "Segment size the executor cuts transfers into, as ringlab bench's, K/M/G suffixes (0 = whole transfers; "
                      "flow-level model only)")
      ->capture_default_str();
  command->add_option("--trace", arguments->trace,
                      "Write a Chrome-trace/Perfetto JSON timeline of the simulation, with per-link loads "
                      "(flow-level; one algorithm and one size; - = standard output)")
      ->check(output_path());
  command
      ->add_option("--protocol", arguments->protocol,
                   "NCCL protocol costs (src/graph/tuning.cc): none, simple, ll, ll128, or auto (the cheapest per size, "
                   "printed, as NCCL picks)")
      ->capture_default_str()
      ->check([](const std::string& name) {
        try {
          simulator::protocols_for(name);
          return std::string();
        } catch (const std::invalid_argument& error) {
          return std::string(error.what());
        }
      });
  command->add_flag("--link-stats", arguments->link_stats,
                    "Add to each row of the --json report the bytes on links (bytes x links crossed, summed), the "
                    "busiest link's bytes and the all-reduce lower bound on the topology (docs/algorithm-map.md)");
  command->add_option("--workload", arguments->workload,
                      "Price one training iteration of this network instead of the size sweep (vgg16-cifar10, "
                      "vgg16-miniimagenet, vgg16-imagenet, alexnet, resnet50; docs/training.md)");
  command->add_option("--mode", arguments->workload_mode, "With --workload: dp | hybrid | both")->capture_default_str();
  command->add_option("--batch", arguments->global_batch, "With --workload: the global batch")->capture_default_str();
  command->add_option("--bucket-bytes", arguments->bucket, "With --workload: gradient bucket size")
      ->capture_default_str();
  command->add_option("--profile", arguments->profile, "With --workload: a ringlab.profile/1 compute profile");
  command->add_option("--device-tflops", arguments->device_tflops,
                      "With --workload: compute from each layer's FLOPs at this assumed TFLOP/s")
      ->check(number_in({0, 1e6, "TFLOP/s", true}));
  add_time_limit_option(*command, arguments->time_limit_seconds);
  command->add_option("--progress-after", arguments->progress_after_seconds,
                      "Seconds after which a sweep prints a progress line with the time left on stderr, at most once a "
                      "second (not with --quiet)")
      ->capture_default_str()
      ->check(number_in({0, 1e6, "s"}));
  command->add_option("--emulate", arguments->emulate,
                      "nccl: print nccl-tests' all_reduce_perf table (its columns, #wrong N/A, the Avg bus bandwidth "
                      "line) instead of ringlab's; --algo defaults to ring and -d takes nccl-tests' names (float) too")
      ->check(CLI::IsMember({"nccl"}));
  CLI::Option* algo = command->get_option("--algo");
  return [arguments, algo] {
    arguments->algorithms_given = algo->count() > 0;
    if (!arguments->emulate.empty() && !arguments->workload.empty())
      throw std::invalid_argument("--emulate nccl prints the all-reduce sweep's table; drop it with --workload");
    TimeLimit time_limit("simulate", arguments->time_limit_seconds);
    return arguments->workload.empty() ? run_simulate(*arguments, time_limit)
                                       : run_workload_simulate(*arguments, time_limit);
  };
}

}  // namespace ringlab::cli
