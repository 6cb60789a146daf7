// The closed-form goal is "any N <= 65536 in <= 50 ms"; Google Benchmark (simulator_bench.cpp)
// times a few N. This scan times one 64 MiB float32 all-reduce prediction on switch:N for every
// simulated algorithm over a set of N chosen to find the slow ones:
// - every N from 2 to 64, and each power of two up to 65536 with its neighbours;
// - the N whose 2^24 elements split into chunks of which only a few differ from the rest (the
//   fewest larger, or the fewest smaller), where ring's walk settles last;
// - N drawn uniformly from [65, 65536] with a fixed seed.
// Per (N, algorithm): the first call on a fresh model (route costs not yet cached), then the best
// of two more, each unprepared and prepared (PreparedSchedule, as `ringlab simulate` prices a
// sweep), and the one-off cost of preparing. Writes JSON to stdout; a summary to stderr.
//   ringlab_closed_form_scan [--random K] [--seed S] [--uneven K]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/algorithms/algorithm.hpp"
#include "simulator/closed_form.hpp"
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
};

ScanOptions parse(int argc, char** argv) {
  ScanOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc || (flag != "--random" && flag != "--seed" && flag != "--uneven")) {
      std::cerr << "usage: ringlab_closed_form_scan [--random K] [--seed S] [--uneven K]\n";
      std::exit(2);
    }
    const int value = std::atoi(argv[++i]);
    if (value < 0) {
      std::cerr << fmt::format("{} must be >= 0, not {}\n", flag, argv[i]);
      std::exit(2);
    }
    if (flag == "--random") options.random = value;
    if (flag == "--seed") options.seed = static_cast<unsigned>(value);
    if (flag == "--uneven") options.uneven = value;
  }
  return options;
}

std::set<int> ranks_to_scan(const ScanOptions& options) {
  std::set<int> ranks;
  for (int n = 2; n <= 64; ++n) ranks.insert(n);
  for (int n = 128; n <= largest_ranks; n *= 2) ranks.insert({n - 1, n, std::min(n + 1, largest_ranks)});
  // How many chunks differ from the rest: min(remainder, N - remainder), 0 for equal chunks.
  std::vector<std::pair<std::int64_t, int>> by_odd_chunks;
  for (int n = 1024; n <= largest_ranks; ++n) {
    const std::int64_t remainder = scan_count % n;
    if (remainder != 0) by_odd_chunks.emplace_back(std::min<std::int64_t>(remainder, n - remainder), -n);
  }
  std::sort(by_odd_chunks.begin(), by_odd_chunks.end());  // fewest odd chunks first, then the largest N
  for (int i = 0; i < options.uneven && i < static_cast<int>(by_odd_chunks.size()); ++i)
    ranks.insert(-by_odd_chunks[static_cast<std::size_t>(i)].second);
  std::mt19937 generator(options.seed);
  std::uniform_int_distribution<int> uniform(65, largest_ranks);
  for (int i = 0; i < options.random; ++i) ranks.insert(uniform(generator));
  return ranks;
}

double milliseconds_of(auto&& call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The faster of two more calls: a warm call, its caches filled by the one before.
double best_of_two_milliseconds(auto&& call) { return std::min(milliseconds_of(call), milliseconds_of(call)); }

nlohmann::json scan_one(int nranks, const char* algorithm) {
  const Topology topology = make_preset_topology(fmt::format("switch:{}", nranks));
  const Schedule schedule = make_schedule(algorithm, Collective::allreduce, nranks);
  nlohmann::json row{{"nranks", nranks}, {"algorithm", algorithm}};
  double seconds = 0;
  {
    simulator::ClosedFormModel model(topology);
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

int run(int argc, char** argv) {
  const ScanOptions options = parse(argc, argv);
  const std::set<int> ranks = ranks_to_scan(options);
  nlohmann::json rows = nlohmann::json::array();
  for (int nranks : ranks)
    for (const char* algorithm : scanned_algorithms) rows.push_back(scan_one(nranks, algorithm));
  // The worst of each column per algorithm, and where.
  nlohmann::json worst = nlohmann::json::object();
  for (const char* algorithm : scanned_algorithms) {
    for (const char* column : {"unprepared_first_ms", "unprepared_ms", "prepared_first_ms", "prepared_ms", "prepare_ms"}) {
      const nlohmann::json* slowest = nullptr;
      for (const nlohmann::json& row : rows)
        if (row["algorithm"] == algorithm && (!slowest || row[column] > (*slowest)[column])) slowest = &row;
      worst[algorithm][column] = {{"ms", (*slowest)[column]}, {"nranks", (*slowest)["nranks"]}};
      std::cerr << fmt::format("{:<20} {:<20} worst {:9.3f} ms at N = {}\n", algorithm, column,
                               (*slowest)[column].get<double>(), (*slowest)["nranks"].get<int>());
    }
  }
  const nlohmann::json report{{"what", "closed-form prediction time, 64 MiB float32 all-reduce on switch:N"},
                              {"count", scan_count},
                              {"type", "float32"},
                              {"options", {{"random", options.random}, {"seed", options.seed}, {"uneven", options.uneven}}},
                              {"nranks_scanned", ranks.size()},
                              {"worst", worst},
                              {"rows", rows}};
  std::cout << report.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace ringlab

int main(int argc, char** argv) { return ringlab::run(argc, argv); }
