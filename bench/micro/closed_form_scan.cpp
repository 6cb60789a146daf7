// The closed-form goals are "any N <= 65536 in <= 50 ms" on switch:N and "<= 1 s" on torus2d, ring,
// nvswitch:8,nodes:M and dragonfly (issue 33); Google Benchmark (simulator_bench.cpp) times a few
// N. This scan times one 64 MiB float32 all-reduce prediction on one family of topologies
// (--topology, default switch) for every simulated algorithm over a set of N chosen to find the
// slow ones (on nvswitch and dragonfly the N they can have: 8 M, and 512 G or, up to 64, 4 G):
// - every N from 2 to 64, and each power of two up to 65536 with its neighbours;
// - the N whose 2^24 elements split into chunks of which only a few differ from the rest (the
//   fewest larger, or the fewest smaller), where ring's walk settles last;
// - N drawn uniformly from [65, 65536] with a fixed seed.
// Per (N, algorithm): the first call on a fresh model (route costs not yet cached), then the best
// of two more, each unprepared and prepared (PreparedSchedule, as `ringlab simulate` prices a
// sweep), and the one-off cost of preparing. Writes JSON to stdout; a summary to stderr.
// torus2d:RxC takes R the largest divisor of N up to its square root (1xN for a prime N).
// Per (N, algorithm) also the model's construction (route costs' symmetry check) and the preset.
// Every time is CPU time (the machine is shared). Each (N, algorithm) runs in a child process: one
// past --limit seconds of CPU for its six predictions (default 30) is stopped and recorded as over the limit; the child's
// peak resident memory and CPU time are recorded.
// --flow N,N,... times the flow-level model instead (ring, interval_paired, halving_doubling at
// those N: CPU time, events and events a second).
//   ringlab_closed_form_scan [--random K] [--seed S] [--uneven K] [--topology FAMILY] [--max-ranks N] [--flow N,...]
#include <fmt/format.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <stdexcept>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
#include "simulator/flow_level.hpp"
#include "topology/presets.hpp"

namespace ringlab {
namespace {

constexpr std::int64_t scan_count = std::int64_t{1} << 24;  // 64 MiB of float32
constexpr int largest_ranks = 65536;
const char* const scanned_algorithms[] = {"ring", "interval_paired", "parameter_server", "halving_doubling",
                                          "recursive_doubling"};

struct ScanOptions {
  int random = 40;
  unsigned seed = 1;
  int uneven = 25;
  std::string topology = "switch";
  int max_ranks = largest_ranks;
  int limit_seconds = 30;  // a (N, algorithm) still running then is recorded as over the limit
  std::vector<int> flow_ranks;  // --flow N,N,...: the flow-level model at these N instead
};

// The preset of `family` with n ranks, or nothing when the family has no such size.
std::optional<std::string> preset_for(const std::string& family, int n) {
  if (family == "switch" || family == "ring") return fmt::format("{}:{}", family, n);
  if (family == "torus2d") {
    int rows = 1;
    for (int r = 1; static_cast<std::int64_t>(r) * r <= n; ++r)
      if (n % r == 0) rows = r;
    return fmt::format("torus2d:{}x{}", rows, n / rows);
  }
  if (family == "nvswitch") {
    if (n <= 8) return fmt::format("nvswitch:{}", n);
    if (n % 8 == 0) return fmt::format("nvswitch:8,nodes:{}", n / 8);
    return std::nullopt;
  }
  if (family == "dragonfly") {
    if (n % 512 == 0) return fmt::format("dragonfly:{}", n / 512);
    if (n <= 64 && n % 4 == 0) return fmt::format("dragonfly:{},routers=2,ranks=2,global={}", n / 4, std::max(1, (n / 4) / 2));
    return std::nullopt;
  }
  std::cerr << "--topology must be switch, ring, torus2d, nvswitch or dragonfly\n";
  std::exit(2);
}

ScanOptions parse(int argc, char** argv) {
  ScanOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc || (flag != "--random" && flag != "--seed" && flag != "--uneven" && flag != "--topology" &&
                          flag != "--max-ranks" && flag != "--limit" && flag != "--flow")) {
      std::cerr << "usage: ringlab_closed_form_scan [--random K] [--seed S] [--uneven K] [--topology FAMILY] [--max-ranks N] [--limit S] [--flow N,N,...]\n";
      std::exit(2);
    }
    if (flag == "--flow") {
      for (std::string_view list = argv[++i]; !list.empty();) {
        const std::size_t comma = std::min(list.find(','), list.size());
        options.flow_ranks.push_back(std::atoi(std::string(list.substr(0, comma)).c_str()));
        list.remove_prefix(std::min(comma + 1, list.size()));
      }
      continue;
    }
    if (flag == "--topology") {
      options.topology = argv[++i];
      preset_for(options.topology, 2);
      continue;
    }
    const int value = std::atoi(argv[++i]);
    if (value < 0) {
      std::cerr << fmt::format("{} must be >= 0, not {}\n", flag, argv[i]);
      std::exit(2);
    }
    if (flag == "--random") options.random = value;
    if (flag == "--seed") options.seed = static_cast<unsigned>(value);
    if (flag == "--uneven") options.uneven = value;
    if (flag == "--limit") options.limit_seconds = std::max(1, value);
    if (flag == "--max-ranks") options.max_ranks = std::clamp(value, 2, largest_ranks);
  }
  return options;
}

std::set<int> ranks_to_scan(const ScanOptions& options) {
  std::set<int> ranks;
  // Families with sizes of a unit (a node of 8 GPUs, a dragonfly group of 512 ranks): the scan's
  // counts of units, and up to 64 ranks every size they take.
  const int unit = options.topology == "nvswitch" ? 8 : options.topology == "dragonfly" ? 512 : 1;
  if (unit > 1) {
    for (int n = 2; n <= 64; ++n)
      if (preset_for(options.topology, n)) ranks.insert(n);
    for (int units = 1; units * unit <= options.max_ranks; units *= 2)
      for (int near : {units - 1, units, units + 1})
        if (near >= 1 && near * unit <= options.max_ranks) ranks.insert(near * unit);
    std::mt19937 generator(options.seed);
    std::uniform_int_distribution<int> uniform(1, options.max_ranks / unit);
    for (int i = 0; i < options.random; ++i) ranks.insert(uniform(generator) * unit);
    return ranks;
  }
  for (int n = 2; n <= 64; ++n) ranks.insert(n);
  for (int n = 128; n <= options.max_ranks; n *= 2) ranks.insert({n - 1, n, std::min(n + 1, options.max_ranks)});
  // How many chunks differ from the rest: min(remainder, N - remainder), 0 for equal chunks.
  std::vector<std::pair<std::int64_t, int>> by_odd_chunks;
  for (int n = 1024; n <= options.max_ranks; ++n) {
    const std::int64_t remainder = scan_count % n;
    if (remainder != 0) by_odd_chunks.emplace_back(std::min<std::int64_t>(remainder, n - remainder), -n);
  }
  std::sort(by_odd_chunks.begin(), by_odd_chunks.end());  // fewest odd chunks first, then the largest N
  for (int i = 0; i < options.uneven && i < static_cast<int>(by_odd_chunks.size()); ++i)
    ranks.insert(-by_odd_chunks[static_cast<std::size_t>(i)].second);
  std::mt19937 generator(options.seed);
  std::uniform_int_distribution<int> uniform(65, std::max(65, options.max_ranks));
  for (int i = 0; i < options.random; ++i) ranks.insert(uniform(generator));
  return ranks;
}

// CPU time of this (single-threaded) process, in ms: the machine is shared, so wall clock is not
// what the code costs.
double cpu_milliseconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

double milliseconds_of(auto&& call) {
  const double start = cpu_milliseconds();
  call();
  return cpu_milliseconds() - start;
}

// The faster of two more calls: a warm call, its caches filled by the one before.
double best_of_two_milliseconds(auto&& call) { return std::min(milliseconds_of(call), milliseconds_of(call)); }

nlohmann::json scan_one(const std::string& preset, int nranks, const char* algorithm) {
  std::optional<Topology> built;
  const double topology_ms = milliseconds_of([&] { built.emplace(make_preset_topology(preset)); });
  const Topology& topology = *built;
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  nlohmann::json row{{"nranks", nranks}, {"algorithm", algorithm}, {"topology", preset}, {"topology_ms", topology_ms}};
  double seconds = 0;
  {
    std::optional<simulator::ClosedFormModel> made;
    row["model_ms"] = milliseconds_of([&] { made.emplace(topology); });
    simulator::ClosedFormModel& model = *made;
    row["unprepared_first_ms"] = milliseconds_of([&] { seconds = model.predict(schedule, scan_count, DataType::float32).seconds; });
    row["unprepared_ms"] =
        best_of_two_milliseconds([&] { model.predict(schedule, scan_count, DataType::float32); });
  }
  std::optional<simulator::PreparedSchedule> prepared;
  row["prepare_ms"] = milliseconds_of([&] { prepared.emplace(schedule); });
  simulator::ClosedFormModel model(topology);
  row["prepared_first_ms"] = milliseconds_of([&] { model.predict(*prepared, scan_count, DataType::float32); });
  row["prepared_ms"] = best_of_two_milliseconds([&] { model.predict(*prepared, scan_count, DataType::float32); });
  row["predicted_seconds"] = seconds;
  return row;
}

// One flow-level prediction (whole transfers, a fresh model) in CPU time, with its events a second.
nlohmann::json scan_flow_one(const std::string& preset, int nranks, const char* algorithm) {
  const Topology topology = make_preset_topology(preset);
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  simulator::FlowLevelModel model(topology);
  std::optional<simulator::FlowPrediction> predicted;
  const double flow_ms = milliseconds_of([&] { predicted.emplace(model.predict(schedule, scan_count, DataType::float32)); });
  return {{"nranks", nranks}, {"algorithm", algorithm}, {"topology", preset}, {"flow_ms", flow_ms},
          {"events", predicted->events}, {"transfers", predicted->transfers},
          {"events_per_s", flow_ms > 0 ? static_cast<double>(predicted->events) / (flow_ms * 1e-3) : 0.0},
          {"predicted_seconds", predicted->prediction.seconds}};
}

// scan_one (or scan_flow_one) in a child process, stopped past the limit; its peak memory from wait4.
nlohmann::json scan_one_limited(const std::string& preset, int nranks, const char* algorithm, int limit_seconds,
                                bool flow = false) {
  int channel[2];
  if (pipe(channel) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    close(channel[0]);
    const rlimit cpu_limit{static_cast<rlim_t>(limit_seconds), static_cast<rlim_t>(limit_seconds) + 1};
    setrlimit(RLIMIT_CPU, &cpu_limit);  // past it: SIGXCPU, recorded as over the limit
    const std::string text = (flow ? scan_flow_one(preset, nranks, algorithm) : scan_one(preset, nranks, algorithm)).dump();
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(channel[1], text.data() + written, text.size() - written);
      if (n <= 0) _exit(1);
      written += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(channel[1]);
  std::string text;
  // The child stops itself at limit_seconds of CPU time; the wall-clock deadline is a backstop for
  // a child that does not run (a load of 8 on 2 cores gives it a quarter of one).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10 * limit_seconds);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd wait_for{channel[0], POLLIN, 0};
    if (poll(&wait_for, 1, static_cast<int>(std::min<long long>(left, 1000))) <= 0) continue;
    char buffer[65536];
    const ssize_t n = read(channel[0], buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  if (timed_out) kill(child, SIGKILL);
  close(channel[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  nlohmann::json row{{"nranks", nranks}, {"algorithm", algorithm}, {"topology", preset}};
  if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) row = nlohmann::json::parse(text);
  else row["over_limit_seconds"] = limit_seconds;
  row["child_cpu_s"] = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  row["max_rss_mib"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  return row;
}

int run(int argc, char** argv) {
  const ScanOptions options = parse(argc, argv);
  if (!options.flow_ranks.empty()) {  // the flow-level goals' algorithms at the N given
    nlohmann::json rows = nlohmann::json::array();
    for (int nranks : options.flow_ranks)
      if (const std::optional<std::string> preset = preset_for(options.topology, nranks))
        for (const char* algorithm : {"ring", "interval_paired", "halving_doubling"}) {
          rows.push_back(scan_one_limited(*preset, nranks, algorithm, options.limit_seconds, true));
          std::cerr << rows.back().dump() << "\n";
        }
    std::cout << nlohmann::json{{"what", "flow-level prediction time (CPU), 64 MiB float32 all-reduce"}, {"rows", rows}}.dump(1) << "\n";
    return 0;
  }
  const std::set<int> ranks = ranks_to_scan(options);
  nlohmann::json rows = nlohmann::json::array();
  for (int nranks : ranks) {
    const std::string preset = *preset_for(options.topology, nranks);
    for (const char* algorithm : scanned_algorithms)
      rows.push_back(scan_one_limited(preset, nranks, algorithm, options.limit_seconds));
  }
  // The worst of each column per algorithm, and where.
  nlohmann::json worst = nlohmann::json::object();
  for (const char* algorithm : scanned_algorithms) {
    for (const char* column :
         {"model_ms", "unprepared_first_ms", "unprepared_ms", "prepared_first_ms", "prepared_ms", "prepare_ms"}) {
      const nlohmann::json* slowest = nullptr;
      int over = 0;
      for (const nlohmann::json& row : rows) {
        if (row["algorithm"] != algorithm) continue;
        if (!row.contains(column)) {
          ++over;
          continue;
        }
        if (!slowest || row[column] > (*slowest)[column]) slowest = &row;
      }
      worst[algorithm][column] = {{"over_limit", over}};
      if (slowest) {
        worst[algorithm][column]["ms"] = (*slowest)[column];
        worst[algorithm][column]["nranks"] = (*slowest)["nranks"];
      }
      std::cerr << fmt::format("{:<20} {:<20} worst {:9.3f} ms at N = {}; {} over the limit\n", algorithm, column,
                               slowest ? (*slowest)[column].get<double>() : 0.0, slowest ? (*slowest)["nranks"].get<int>() : 0,
                               over);
    }
  }
  const nlohmann::json report{{"what", fmt::format("closed-form prediction time, 64 MiB float32 all-reduce on {}", options.topology)},
                              {"count", scan_count},
                              {"type", "float32"},
                              {"options", {{"random", options.random}, {"seed", options.seed}, {"uneven", options.uneven},
                                               {"topology", options.topology}, {"max_ranks", options.max_ranks},
                                               {"limit_seconds", options.limit_seconds}}},
                              {"nranks_scanned", ranks.size()},
                              {"worst", worst},
                              {"rows", rows}};
  std::cout << report.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace ringlab

int main(int argc, char** argv) { return ringlab::run(argc, argv); }
