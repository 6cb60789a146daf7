// `ringlab bench -d all` and `-o all`, as in nccl-tests: the sweep runs once per (type, op), types
// outermost, and the reports of those runs are merged into one ringlab.bench/1 report whose rows
// carry their type and redop and whose config says "all" with the list (docs/bench.md,
// docs/bench-report-format.md). Pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/datatype.hpp"

namespace ringlab::bench {

// The types and ops a bench run covers: one of each, or every one the bench supports ("all").
struct TypeOpList {
  std::vector<DataType> types;
  std::vector<ReduceOp> ops;
  bool all_types = false;
  bool all_ops = false;
};

// -d and -o as given: "all" or one name (parse_data_type / parse_reduce_op spellings). Throws
// std::invalid_argument naming the option.
TypeOpList parse_type_op_list(std::string_view type_text, std::string_view op_text);

// Every (type, op) to run, types outermost (nccl-tests' order of loops).
std::vector<std::pair<DataType, ReduceOp>> type_op_cases(const TypeOpList& list);

// One report from the reports of each (type, op) in turn: the first one's header, every one's
// results in order, complete only if every part is; with -d all config.datatype is "all" and
// config.datatypes the list (the same for -o all: config.op and config.ops). Throws
// std::invalid_argument on no parts.
nlohmann::json merge_type_op_reports(const std::vector<nlohmann::json>& parts, const TypeOpList& list);

}  // namespace ringlab::bench
