// A selection table (`ringlab tune` writes it, `bench --algo auto --tuning FILE` reads it): for
// each collective and rank count, size ranges and the algorithm and segment size to run in each,
// as NCCL's tuner or MPICH's collective-selection file choose one per (communicator size,
// message size). The ringlab.tuning/1 JSON shape is in docs/bench.md ("Tuning").
//
// A rule applies from its min_bytes up to the next rule's min_bytes for the same collective and
// rank count; the first rule also covers every smaller size and the last every larger one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/schedule.hpp"

namespace ringlab {

inline constexpr const char* tuning_schema = "ringlab.tuning/1";

struct SelectionRule {
  Collective collective = Collective::allreduce;
  int nranks = 1;
  std::int64_t min_bytes = 0;
  std::string algorithm;
  std::int64_t segment_bytes = 0;  // the executor's segment size (0: whole transfers)
  // What the table was built from (reports only; lookup ignores them): the predicted time at
  // min_bytes, the fastest other algorithm there, and the least margin to it over the range
  // (runner-up time / chosen time - 1).
  double predicted_seconds = 0;
  std::string runner_up;
  double margin = 0;
};

// What a table chose for one call of `bytes` (reports of `--algo auto` runs).
struct SelectionChoice {
  std::int64_t bytes = 0;
  std::string algorithm;
  std::int64_t segment_bytes = 0;
};

struct SelectionTable {
  nlohmann::json source;  // how it was made: command, topology, model, type, op (free-form object)
  std::vector<SelectionRule> rules;  // sorted by (collective, nranks, min_bytes)
};

// The rule for one call. Throws std::invalid_argument when the table has no rule for the
// collective at `nranks`, naming the rank counts it has and the `ringlab tune` option to add it.
const SelectionRule& select_rule(const SelectionTable& table, Collective collective, int nranks, std::int64_t bytes);

// Rules sorted; adjacent ranges with the same algorithm and segment size merged (the merged
// rule keeps the first one's prediction and runner-up, and the least margin).
std::vector<SelectionRule> merge_rules(std::vector<SelectionRule> rules);

nlohmann::json to_json(const SelectionTable& table);
// {"bytes", "algorithm", "segment_bytes"}.
nlohmann::json to_json(const SelectionChoice& choice);
// Checks the shape and every value; throws std::invalid_argument naming the JSON path and what
// to write. Algorithm names are checked against the registry (an unknown name is refused).
SelectionTable selection_table_from_json(const nlohmann::json& document, const std::string& where);
// As above for a file (io::read_json_input's checks), messages prefixed with the file name.
SelectionTable read_selection_table(const std::string& path);

// One line for the bench's cross-rank agreement check: the rule count and a digest of the rules.
std::string describe(const SelectionTable& table);

}  // namespace ringlab
