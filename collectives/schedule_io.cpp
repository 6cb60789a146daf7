#include "collectives/schedule_io.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>

#include "io/json_input.hpp"
#include "io/printable.hpp"

namespace ringlab {

namespace {

// Absurd sizes are refused before anything is allocated (the verifier also bounds its own state).
constexpr std::int64_t max_ranks = 1 << 20;
constexpr std::int64_t max_chunks = std::int64_t{1} << 24;
constexpr std::int64_t max_steps_per_rank = std::int64_t{1} << 20;
constexpr std::int64_t max_ops_in_all = std::int64_t{1} << 24;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(fmt::format("schedule JSON: {}: {}", where, what));
}

std::int64_t integer_at(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) fail(where, fmt::format("missing field \"{}\"", key));
  const nlohmann::json& value = object.at(key);
  if (!value.is_number_integer()) fail(where + "." + key, "expected an integer");
  return value.get<std::int64_t>();
}

std::string string_at(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) fail(where, fmt::format("missing field \"{}\"", key));
  const nlohmann::json& value = object.at(key);
  if (!value.is_string()) fail(where + "." + key, "expected a string");
  return io::printable(value.get<std::string>());  // escaped: names are printed
}

Op op_from_json(const nlohmann::json& value, const std::string& where) {
  Op op;
  try {
    op.kind = parse_op_kind(string_at(value, "op", where));
  } catch (const std::invalid_argument& error) {
    fail(where + ".op", error.what());
  }
  const std::int64_t peer = integer_at(value, "peer", where);
  if (peer < 0 || peer >= max_ranks) fail(where + ".peer", fmt::format("peer {} is out of range", peer));
  op.peer = static_cast<int>(peer);
  const nlohmann::json& chunks = value.contains("chunks") ? value.at("chunks") : nlohmann::json();
  if (!chunks.is_array() || chunks.size() != 2 || !chunks[0].is_number_integer() || !chunks[1].is_number_integer())
    fail(where + ".chunks", "expected [begin, end] with two integers");
  op.chunks = {chunks[0].get<std::int64_t>(), chunks[1].get<std::int64_t>()};
  return op;
}

}  // namespace

nlohmann::json to_json(const Schedule& schedule) {
  nlohmann::json document = {{"schema", schedule_schema},
                             {"collective", name_of(schedule.collective)},
                             {"algorithm", schedule.algorithm},
                             {"nranks", schedule.nranks},
                             {"nchunks", schedule.nchunks}};
  if (schedule.collective == Collective::broadcast) document["root"] = schedule.root;
  nlohmann::json ranks = nlohmann::json::array();
  for (int rank = 0; rank < schedule.nranks; ++rank) {
    nlohmann::json steps = nlohmann::json::array();
    for (const Step& step : schedule.program(rank).steps) {
      nlohmann::json ops = nlohmann::json::array();
      for (const Op& op : step)
        ops.push_back({{"op", name_of(op.kind)}, {"peer", op.peer}, {"chunks", {op.chunks.begin, op.chunks.end}}});
      steps.push_back(std::move(ops));
    }
    ranks.push_back({{"rank", rank}, {"steps", std::move(steps)}});
  }
  document["ranks"] = std::move(ranks);
  return document;
}

Schedule schedule_from_json(const nlohmann::json& document) {
  if (!document.is_object()) fail("(top level)", "expected a JSON object");
  const std::string schema = string_at(document, "schema", "(top level)");
  if (schema != schedule_schema)
    fail("schema", fmt::format("unsupported schema \"{}\"; this build reads \"{}\"", schema, schedule_schema));
  Schedule schedule;
  schedule.algorithm = string_at(document, "algorithm", "(top level)");
  try {
    schedule.collective = parse_collective(string_at(document, "collective", "(top level)"));
  } catch (const std::invalid_argument& error) {
    fail("collective", error.what());
  }
  const std::int64_t nranks = integer_at(document, "nranks", "(top level)");
  if (nranks < 1 || nranks > max_ranks)
    fail("nranks", fmt::format("{} is outside [1, {}]", nranks, max_ranks));
  schedule.nranks = static_cast<int>(nranks);
  schedule.nchunks = integer_at(document, "nchunks", "(top level)");
  if (schedule.nchunks < 1 || schedule.nchunks > max_chunks)
    fail("nchunks", fmt::format("{} is outside [1, {}]", schedule.nchunks, max_chunks));
  if (document.contains("root")) {
    const std::int64_t root = integer_at(document, "root", "(top level)");
    if (root < 0 || root >= nranks) fail("root", fmt::format("root {} is outside [0, {})", root, nranks));
    schedule.root = static_cast<int>(root);
  }
  const nlohmann::json& ranks = document.contains("ranks") ? document.at("ranks") : nlohmann::json();
  if (!ranks.is_array()) fail("ranks", "expected an array with one entry per rank");
  if (static_cast<std::int64_t>(ranks.size()) != nranks)
    fail("ranks", fmt::format("has {} entries but nranks is {}", ranks.size(), nranks));
  schedule.programs.resize(static_cast<std::size_t>(nranks));
  std::vector<bool> seen(static_cast<std::size_t>(nranks), false);
  std::int64_t ops_in_all = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string where = fmt::format("ranks[{}]", i);
    const std::int64_t rank = integer_at(ranks[i], "rank", where);
    if (rank < 0 || rank >= nranks) fail(where + ".rank", fmt::format("rank {} is outside [0, {})", rank, nranks));
    if (seen[static_cast<std::size_t>(rank)]) fail(where + ".rank", fmt::format("rank {} appears twice", rank));
    seen[static_cast<std::size_t>(rank)] = true;
    const nlohmann::json& steps = ranks[i].contains("steps") ? ranks[i].at("steps") : nlohmann::json();
    if (!steps.is_array()) fail(where + ".steps", "expected an array of steps");
    if (static_cast<std::int64_t>(steps.size()) > max_steps_per_rank)
      fail(where + ".steps", fmt::format("has {} steps; the limit is {}", steps.size(), max_steps_per_rank));
    RankProgram& program = schedule.programs[static_cast<std::size_t>(rank)];
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const std::string step_where = fmt::format("{}.steps[{}]", where, s);
      if (!steps[s].is_array()) fail(step_where, "expected an array of ops");
      ops_in_all += static_cast<std::int64_t>(steps[s].size());
      if (ops_in_all > max_ops_in_all)
        fail(step_where, fmt::format("the schedule has more than {} ops in all (the limit)", max_ops_in_all));
      Step step;
      for (std::size_t o = 0; o < steps[s].size(); ++o)
        step.push_back(op_from_json(steps[s][o], fmt::format("{}[{}]", step_where, o)));
      program.steps.push_back(std::move(step));
    }
  }
  return schedule;
}

Schedule read_schedule_file(const std::string& path) {
  const nlohmann::json document = io::read_json_input(path, "schedule file");
  try {
    return schedule_from_json(document);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("{}: {}", path, error.what()));
  }
}

void print_schedule(std::ostream& out, const Schedule& schedule) {
  const int steps = schedule.num_steps();
  fmt::print(out, "{} {}: {} ranks, {} chunks, {} steps\n", schedule.algorithm, name_of(schedule.collective),
             schedule.nranks, schedule.nchunks, steps);
  std::vector<RankProgram> programs;
  for (int rank = 0; rank < schedule.nranks; ++rank) programs.push_back(schedule.program(rank));
  for (int step = 0; step < steps; ++step) {
    fmt::print(out, "step {}\n", step);
    for (int rank = 0; rank < schedule.nranks; ++rank) {
      const auto& rank_steps = programs[static_cast<std::size_t>(rank)].steps;
      if (static_cast<std::size_t>(step) >= rank_steps.size() || rank_steps[static_cast<std::size_t>(step)].empty())
        continue;
      std::string line;
      for (const Op& op : rank_steps[static_cast<std::size_t>(step)]) {
        if (!line.empty()) line += ", ";
        line += fmt::format("{} [{},{}) {} {}", name_of(op.kind), op.chunks.begin, op.chunks.end,
                            op.kind == OpKind::send ? "->" : "<-", op.peer);
      }
      fmt::print(out, "  rank {}: {}\n", rank, line);
    }
  }
}

}  // namespace ringlab
