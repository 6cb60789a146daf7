#include "bench/src/type_op_sweep.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ringlab::bench {

TypeOpList parse_type_op_list(std::string_view type_text, std::string_view op_text) {
  TypeOpList list;
  list.all_types = type_text == "all";
  list.all_ops = op_text == "all";
  try {
    if (list.all_types)
      list.types.assign(std::begin(all_data_types), std::end(all_data_types));
    else
      list.types = {parse_data_type(type_text)};
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("-d/--datatype: {}, or all", error.what()));
  }
  try {
    if (list.all_ops)
      list.ops.assign(std::begin(all_reduce_ops), std::end(all_reduce_ops));
    else
      list.ops = {parse_reduce_op(op_text)};
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(fmt::format("-o/--op: {}, or all", error.what()));
  }
  return list;
}

std::vector<std::pair<DataType, ReduceOp>> type_op_cases(const TypeOpList& list) {
  std::vector<std::pair<DataType, ReduceOp>> cases;
  for (DataType type : list.types)
    for (ReduceOp op : list.ops) cases.emplace_back(type, op);
  return cases;
}

nlohmann::json merge_type_op_reports(const std::vector<nlohmann::json>& parts, const TypeOpList& list) {
  if (parts.empty()) throw std::invalid_argument("merge_type_op_reports: no reports to merge");
  nlohmann::json merged = parts.front();
  nlohmann::json& results = merged.at("results");
  bool complete = merged.at("complete").get<bool>();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    for (const nlohmann::json& row : parts[i].at("results")) results.push_back(row);
    complete = complete && parts[i].at("complete").get<bool>();
  }
  merged["complete"] = complete;
  nlohmann::json& config = merged.at("config");
  if (list.all_types) {
    config["datatype"] = "all";
    config["datatypes"] = nlohmann::json::array();
    for (DataType type : list.types) config["datatypes"].push_back(name_of(type));
  }
  if (list.all_ops) {
    config["op"] = "all";
    config["ops"] = nlohmann::json::array();
    for (ReduceOp op : list.ops) config["ops"].push_back(name_of(op));
  }
  return merged;
}

}  // namespace ringlab::bench
