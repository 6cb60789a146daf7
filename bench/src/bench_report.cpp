#include "bench/src/bench_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "collectives/placement.hpp"
#include "report/utc_timestamp.hpp"

namespace ringlab::bench {

namespace {

std::string wrong_text(std::int64_t wrong) { return wrong < 0 ? "N/A" : std::to_string(wrong); }

// --ci: the median and its 95 % interval after a row's columns ("N/A" for predicted rows).
std::string interval_columns(const report::ResultRow& row) {
  if (!row.time.p50_ci95) return fmt::format("   {:>10} {:>10} {:>10}", "N/A", "N/A", "N/A");
  return fmt::format("   {:>10.2f} {:>10.2f} {:>10.2f}", row.time.p50_us, row.time.p50_ci95->low,
                     row.time.p50_ci95->high);
}

// The time_us object of a row: measured rows add loop_avg and the median's interval.
nlohmann::json time_json(const report::TimeStats& time) {
  nlohmann::json json = {{"avg", time.avg_us}, {"min", time.min_us}, {"p50", time.p50_us},
                         {"p99", time.p99_us}, {"max", time.max_us}, {"cv", time.cv}};
  if (time.loop_avg_us) json["loop_avg"] = *time.loop_avg_us;
  if (time.p50_ci95) {
    json["p50_ci95_low"] = time.p50_ci95->low;
    json["p50_ci95_high"] = time.p50_ci95->high;
    json["p50_ci95_coverage"] = time.p50_ci95->coverage;
  }
  return json;
}

}  // namespace

void print_header(std::FILE* out, const RunDescription& run, const BenchOptions& options) {
  fmt::print(out, "# ringlab bench: {}\n", run.command);
  fmt::print(out, "# host {} | {} | {} cores | {:.1f} GiB | {}\n", run.machine.hostname, run.machine.cpu_model,
             run.machine.cores, static_cast<double>(run.machine.memory_bytes) / (1 << 30), run.machine.os);
  fmt::print(out, "# backend {} | {} ranks | MPI: {} | memcpy {:.2f} GB/s (this run)\n", run.backend, run.nranks,
             run.machine.mpi_library.value_or("none"), run.machine.memcpy_gbps);
  if (run.machine.cuda_version)
    fmt::print(out, "# CUDA {} | NCCL {}\n", *run.machine.cuda_version, run.machine.nccl_version.value_or("none"));
  for (const std::string& gpu : run.machine.gpus) fmt::print(out, "# gpu {}\n", gpu);
  fmt::print(out, "# transport {}\n", run.transport);
  if (!run.placement.empty()) fmt::print(out, "# placement {}\n", run.placement);
  if (run.verdict) fmt::print(out, "# {}\n", report::placement_verdict_line(*run.verdict, run.nranks));
  if (!run.buffers.empty()) fmt::print(out, "# buffers {}\n", run.buffers);
  fmt::print(out, "# sizes {}..{} B | type {} | op {} | iters {} warmup {} | check {} | average {} | segment {} B\n",
             options.min_bytes, options.max_bytes, name_of(options.type), name_of(options.op), options.iterations,
             options.warmup_iterations, options.check ? 1 : 0, name_of(options.average), options.segment_bytes);
  if (options.small_iterations > 0)
    fmt::print(out, "# iters {} for sizes up to {} B (--iters-small)\n", options.small_iterations, options.small_max_bytes);
  if (options.converge)
    fmt::print(out, "# converge: each row timed until its median's 95 % interval is within +-{:g} % of it, at most {:g} s\n",
               options.converge->rel * 100, options.converge->max_seconds);
  for (const std::string& note : run.notes) fmt::print(out, "# note: {}\n", note);
  print_column_titles(out, options.show_ci);
}

void print_column_titles(std::FILE* out, bool ci) {
  const std::string ci_titles =
      ci ? fmt::format("   {:>10} {:>10} {:>10}   {:>10} {:>10} {:>10}", "p50_oop", "ci95_low", "ci95_high",
                       "p50_inpl", "ci95_low", "ci95_high")
         : "";
  const std::string ci_units =
      ci ? fmt::format("   {:>10} {:>10} {:>10}   {:>10} {:>10} {:>10}", "(us)", "(us)", "(us)", "(us)", "(us)", "(us)")
         : "";
  fmt::print(out, "#\n#{:>12} {:>12} {:>9} {:>6} {:>19}   {:>10} {:>8} {:>8} {:>6}   {:>10} {:>8} {:>8} {:>6}{}\n", "size",
             "count", "type", "redop", "algorithm", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
             "#wrong", ci_titles);
  fmt::print(out, "#{:>12} {:>12} {:>9} {:>6} {:>19}   {:>10} {:>8} {:>8} {:>6}   {:>10} {:>8} {:>8} {:>6}{}\n", "(B)",
             "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "oop", "(us)", "(GB/s)", "(GB/s)", "inplace", ci_units);
  std::fflush(out);
}

void print_size_rows(std::FILE* out, const std::vector<report::ResultRow>& rows, const BenchOptions& options) {
  for (std::size_t i = 0; i + 1 < rows.size(); i += 2) {
    const report::ResultRow& oop = rows[i];
    const report::ResultRow& inplace = rows[i + 1];
    fmt::print(out, " {:>12} {:>12} {:>9} {:>6} {:>19}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}   {:>10.2f} {:>8.3f} {:>8.3f} {:>6}{}\n",
               oop.size_bytes, oop.count, name_of(options.type), name_of(options.op),
               oop.auto_algorithm ? fmt::format("{}:{}", oop.algorithm, *oop.auto_algorithm) : oop.algorithm, oop.time.avg_us,
               oop.algbw_gbps, oop.busbw_gbps, wrong_text(oop.wrong), inplace.time.avg_us, inplace.algbw_gbps,
               inplace.busbw_gbps, wrong_text(inplace.wrong),
               options.show_ci ? interval_columns(oop) + interval_columns(inplace) : "");
  }
  std::fflush(out);
}

void print_footer(std::FILE* out, const std::vector<report::ResultRow>& rows, const BenchOptions& options) {
  std::map<std::string, std::pair<double, int>> sums;
  std::int64_t wrong = 0;
  for (const report::ResultRow& row : rows) {
    auto& [sum, count] = sums[row.algorithm];
    sum += row.busbw_gbps;
    ++count;
    wrong += std::max<std::int64_t>(row.wrong, 0);
  }
  fmt::print(out, "# Out of bounds values : {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED");
  for (const std::string& name : options.algorithms) {
    const auto found = sums.find(name);
    if (found == sums.end()) continue;
    fmt::print(out, "# Avg bus bandwidth    : {:>8.3f} GB/s  {}\n", found->second.first / found->second.second, name);
  }
  print_not_converged(out, rows);
  std::fflush(out);
}

void print_not_converged(std::FILE* out, const std::vector<report::ResultRow>& rows) {
  std::vector<std::string> missed;
  for (const report::ResultRow& row : rows) {
    if (row.converged.value_or(true)) continue;
    const double half_width = row.time.p50_ci95 ? (row.time.p50_ci95->high - row.time.p50_ci95->low) / 2 : 0.0;
    const double relative = row.time.p50_us > 0 ? half_width / row.time.p50_us * 100 : 0.0;
    missed.push_back(fmt::format("{} {} B {} (+-{:.1f} % after {} calls)", row.algorithm, row.size_bytes,
                                 name_of(placement_of(row.in_place)), relative, row.iterations));
  }
  if (!missed.empty()) fmt::print(out, "# not converged: {}\n", fmt::join(missed, "; "));
  std::fflush(out);
}

nlohmann::json make_report(const RunDescription& run, const BenchOptions& options,
                           const std::vector<report::ResultRow>& rows, bool complete) {
  nlohmann::json results = nlohmann::json::array();
  for (const report::ResultRow& row : rows)
    results.push_back({{"algorithm", row.algorithm},
                       {"size_bytes", row.size_bytes},
                       {"count", row.count},
                       {"type", name_of(options.type)},
                       {"redop", name_of(options.op)},
                       {"placement", name_of(placement_of(row.in_place))},
                       {"time_us", time_json(row.time)},
                       {"algbw_gbps", row.algbw_gbps},
                       {"busbw_gbps", row.busbw_gbps},
                       {"wrong", row.wrong}});
  for (std::size_t i = 0; i < rows.size(); ++i) {  // measured rows: calls timed, convergence, rank skew
    if (rows[i].iterations <= 0) continue;
    results[i]["iters"] = rows[i].iterations;
    results[i]["converged"] = rows[i].converged ? nlohmann::json(*rows[i].converged) : nlohmann::json(nullptr);
    if (const auto& skew = rows[i].rank_skew_us)
      results[i]["rank_skew_us"] = {{"min", skew->min_us}, {"p50", skew->p50_us}, {"max", skew->max_us}};
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].wall_avg_us) results[i]["wall_avg_us"] = *rows[i].wall_avg_us;
    if (rows[i].total_link_bytes) results[i]["total_link_bytes"] = *rows[i].total_link_bytes;
    if (rows[i].busiest_link_bytes) results[i]["busiest_link_bytes"] = *rows[i].busiest_link_bytes;
    if (rows[i].lower_bound_us) results[i]["lower_bound_us"] = *rows[i].lower_bound_us;
    if (rows[i].auto_algorithm)
      results[i]["auto"] = {{"algorithm", *rows[i].auto_algorithm}, {"segment_bytes", rows[i].auto_segment_bytes}};
  }
  nlohmann::json document = {{"schema", bench_schema},
          {"complete", complete},
          {"kind", run.model ? "predicted" : "measured"},
          {"created", report::utc_timestamp()},
          {"command", run.command},
          {"machine", report::to_json(run.machine)},
          {"config",
           {{"backend", run.backend},
            {"transport", run.transport},
            {"nranks", run.nranks},
            {"datatype", name_of(options.type)},
            {"op", name_of(options.op)},
            {"minbytes", options.min_bytes},
            {"maxbytes", options.max_bytes},
            {"stepfactor", options.step_factor},
            {"stepbytes", options.step_bytes},
            {"iters", options.iterations},
            {"small_iters", options.small_iterations},
            {"small_maxbytes", options.small_max_bytes},
            {"warmup_iters", options.warmup_iterations},
            {"check", options.check},
            {"average", name_of(options.average)},
            {"segment_bytes", options.segment_bytes},
            {"algorithms", options.algorithms},
            {"baseline", options.baseline},
            {"converge", options.converge ? nlohmann::json{{"rel", options.converge->rel},
                                                           {"max_seconds", options.converge->max_seconds}}
                                          : nlohmann::json(nullptr)}}},
          {"results", std::move(results)}};
  if (!run.buffers.empty()) document["config"]["buffers"] = run.buffers;
  if (!run.rank_cpus.empty()) document["config"]["rank_cpus"] = run.rank_cpus;
  if (!run.placement.empty()) document["config"]["placement"] = run.placement;
  if (run.verdict) {
    document["config"]["oversubscribed"] = run.verdict->oversubscribed;
    document["config"]["ranks_per_host"] = run.verdict->ranks_per_host;
    document["config"]["usable_cores"] = run.verdict->usable_cores;
    document["config"]["bound"] = run.verdict->bound;
  }
  if (run.model)
    document["config"]["model"] = {{"name", run.model->name},
                                 {"topology", run.model->topology},
                                 {"gamma_seconds_per_byte", run.model->gamma_seconds_per_byte}};
  return document;
}

}  // namespace ringlab::bench
