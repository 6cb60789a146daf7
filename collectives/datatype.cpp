#include "collectives/datatype.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace ringlab {

namespace {

constexpr std::pair<std::string_view, DataType> data_type_names[] = {
    {"float32", DataType::float32}, {"float", DataType::float32},     {"f32", DataType::float32},
    {"float64", DataType::float64}, {"double", DataType::float64},    {"f64", DataType::float64},
    {"float16", DataType::float16}, {"half", DataType::float16},      {"f16", DataType::float16},
    {"bfloat16", DataType::bfloat16}, {"bf16", DataType::bfloat16},   {"int32", DataType::int32},
    {"int", DataType::int32},       {"int64", DataType::int64},       {"long", DataType::int64},
};

constexpr std::pair<std::string_view, ReduceOp> reduce_op_names[] = {
    {"sum", ReduceOp::sum}, {"prod", ReduceOp::prod}, {"min", ReduceOp::min},
    {"max", ReduceOp::max}, {"avg", ReduceOp::avg},
};

}  // namespace

std::string_view name_of(DataType type) {
  switch (type) {
    case DataType::float32: return "float32";
    case DataType::float64: return "float64";
    case DataType::float16: return "float16";
    case DataType::bfloat16: return "bfloat16";
    case DataType::int32: return "int32";
    case DataType::int64: return "int64";
  }
  return "unknown";
}

std::string_view name_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
  }
  return "unknown";
}

DataType parse_data_type(std::string_view name) {
  for (const auto& [spelling, type] : data_type_names)
    if (spelling == name) return type;
  throw std::invalid_argument(fmt::format(
      "unknown data type '{}'; valid types: float32 (float), float64 (double), float16 (half), "
      "bfloat16 (bf16), int32 (int), int64 (long)",
      name));
}

ReduceOp parse_reduce_op(std::string_view name) {
  for (const auto& [spelling, op] : reduce_op_names)
    if (spelling == name) return op;
  throw std::invalid_argument(
      fmt::format("unknown reduction operator '{}'; valid operators: sum, prod, min, max, avg", name));
}

}  // namespace ringlab
