#include "collectives/selection_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "collectives/algorithms/algorithm.hpp"
#include "io/checked_number.hpp"
#include "io/json_input.hpp"

namespace ringlab {

namespace {

constexpr std::int64_t max_table_ranks = 1 << 20;
constexpr std::int64_t max_table_bytes = std::int64_t{1} << 50;
constexpr std::size_t max_table_rules = 1 << 20;

auto rule_key(const SelectionRule& rule) { return std::make_tuple(rule.collective, rule.nranks, rule.min_bytes); }

[[noreturn]] void fail_table(const std::string& where, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}: {}", where, what));
}

const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.contains(key)) fail_table(where, fmt::format("'{}' is missing", key));
  return object.at(key);
}

std::string string_member(const nlohmann::json& object, const char* key, const std::string& where) {
  const nlohmann::json& value = member(object, key, where);
  if (!value.is_string()) fail_table(where + "." + key, fmt::format("{} is not a string", value.dump()));
  return value.get<std::string>();
}

SelectionRule rule_from_json(const nlohmann::json& value, const std::string& where) {
  if (!value.is_object()) fail_table(where, "a rule must be an object {\"collective\", \"nranks\", \"min_bytes\", ...}");
  SelectionRule rule;
  try {
    rule.collective = parse_collective(string_member(value, "collective", where));
  } catch (const std::invalid_argument& error) {
    fail_table(where + ".collective", error.what());
  }
  rule.nranks = static_cast<int>(
      io::check_json_integer(member(value, "nranks", where), where + ".nranks", 1, max_table_ranks, "ranks"));
  rule.min_bytes = io::check_json_integer(member(value, "min_bytes", where), where + ".min_bytes", 0, max_table_bytes, "B");
  rule.algorithm = string_member(value, "algorithm", where);
  try {
    const AlgorithmInfo& algorithm = find_algorithm(rule.algorithm);
    if (!supports(algorithm, rule.collective))
      fail_table(where + ".algorithm", fmt::format("{} has no {} schedule", rule.algorithm, name_of(rule.collective)));
  } catch (const std::invalid_argument& error) {
    fail_table(where + ".algorithm", error.what());
  }
  rule.segment_bytes =
      io::check_json_integer(member(value, "segment_bytes", where), where + ".segment_bytes", 0, max_table_bytes, "B");
  if (value.contains("predicted_seconds"))
    rule.predicted_seconds =
        io::check_json_number(value.at("predicted_seconds"), where + ".predicted_seconds", {0, 1e9, "s"});
  if (value.contains("runner_up")) rule.runner_up = string_member(value, "runner_up", where);
  if (value.contains("margin")) rule.margin = io::check_json_number(value.at("margin"), where + ".margin", {0, 1e9});
  return rule;
}

}  // namespace

const SelectionRule& select_rule(const SelectionTable& table, Collective collective, int nranks, std::int64_t bytes) {
  const SelectionRule* chosen = nullptr;
  std::set<int> rank_counts;
  for (const SelectionRule& rule : table.rules) {
    if (rule.collective != collective) continue;
    rank_counts.insert(rule.nranks);
    if (rule.nranks != nranks) continue;
    if (chosen == nullptr || rule.min_bytes <= bytes) chosen = &rule;  // rules are sorted by min_bytes
    if (rule.min_bytes > bytes) break;
  }
  if (chosen == nullptr)
    throw std::invalid_argument(fmt::format(
        "the tuning table has no {} rule for {} ranks (it has {}); make one with `ringlab tune --ranks {}` on the "
        "topology the job runs on",
        name_of(collective), nranks, rank_counts.empty() ? std::string("none") : fmt::format("{}", fmt::join(rank_counts, ", ")),
        nranks));
  return *chosen;
}

std::vector<SelectionRule> merge_rules(std::vector<SelectionRule> rules) {
  std::stable_sort(rules.begin(), rules.end(),
                   [](const SelectionRule& a, const SelectionRule& b) { return rule_key(a) < rule_key(b); });
  std::vector<SelectionRule> merged;
  for (SelectionRule& rule : rules) {
    if (!merged.empty()) {
      SelectionRule& last = merged.back();
      if (last.collective == rule.collective && last.nranks == rule.nranks && last.algorithm == rule.algorithm &&
          last.segment_bytes == rule.segment_bytes) {
        last.margin = std::min(last.margin, rule.margin);
        continue;
      }
    }
    merged.push_back(std::move(rule));
  }
  return merged;
}

nlohmann::json to_json(const SelectionTable& table) {
  nlohmann::json rules = nlohmann::json::array();
  for (const SelectionRule& rule : table.rules)
    rules.push_back({{"collective", name_of(rule.collective)},
                     {"nranks", rule.nranks},
                     {"min_bytes", rule.min_bytes},
                     {"algorithm", rule.algorithm},
                     {"segment_bytes", rule.segment_bytes},
                     {"predicted_seconds", rule.predicted_seconds},
                     {"runner_up", rule.runner_up},
                     {"margin", rule.margin}});
  return {{"schema", tuning_schema}, {"source", table.source.is_null() ? nlohmann::json::object() : table.source},
          {"rules", rules}};
}

SelectionTable selection_table_from_json(const nlohmann::json& document, const std::string& where) {
  if (!document.is_object()) fail_table(where, "a tuning table must be a JSON object with \"schema\" and \"rules\"");
  const std::string schema = string_member(document, "schema", where);
  if (schema != tuning_schema)
    fail_table(where + ".schema", fmt::format("'{}' is not {}; write the file with `ringlab tune`", schema, tuning_schema));
  SelectionTable table;
  if (document.contains("source")) table.source = document.at("source");
  const nlohmann::json& rules = member(document, "rules", where);
  if (!rules.is_array() || rules.empty())
    fail_table(where + ".rules", "must be a non-empty array of rules; write the file with `ringlab tune`");
  if (rules.size() > max_table_rules) fail_table(where + ".rules", fmt::format("more than {} rules", max_table_rules));
  for (std::size_t i = 0; i < rules.size(); ++i)
    table.rules.push_back(rule_from_json(rules[i], fmt::format("{}.rules[{}]", where, i)));
  for (std::size_t i = 1; i < table.rules.size(); ++i) {
    if (!(rule_key(table.rules[i - 1]) < rule_key(table.rules[i])))
      fail_table(fmt::format("{}.rules[{}]", where, i),
           "rules must be sorted by (collective, nranks, min_bytes) without repeats; this one is not after the "
           "previous one");
  }
  return table;
}

SelectionTable read_selection_table(const std::string& path) {
  return selection_table_from_json(io::read_json_input(path, "tuning table"), fmt::format("tuning table '{}'", path));
}

nlohmann::json to_json(const SelectionChoice& choice) {
  return {{"bytes", choice.bytes}, {"algorithm", choice.algorithm}, {"segment_bytes", choice.segment_bytes}};
}

std::string describe(const SelectionTable& table) {
  std::size_t digest = 0;
  for (const SelectionRule& rule : table.rules) {
    const std::string text = fmt::format("{}/{}/{}/{}/{}", name_of(rule.collective), rule.nranks, rule.min_bytes,
                                         rule.algorithm, rule.segment_bytes);
    digest = digest * 1000003u ^ std::hash<std::string>{}(text);
  }
  return fmt::format("tuning {} rules {:016x}", table.rules.size(), digest);
}

}  // namespace ringlab
