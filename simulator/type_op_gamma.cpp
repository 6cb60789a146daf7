#include "simulator/type_op_gamma.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "simulator/closed_form.hpp"

namespace ringlab::simulator {

namespace {

const TypeOpGamma* find_row(const Topology& topology, std::string_view type, std::string_view op) {
  const std::vector<TypeOpGamma>& table = topology.gamma_by_type_op();
  const auto row = std::find_if(table.begin(), table.end(),
                                [&](const TypeOpGamma& entry) { return entry.type == type && entry.op == op; });
  return row == table.end() ? nullptr : &*row;
}

const TypeOpGamma* find_row(const Topology& topology, DataType type, ReduceOp op) {
  return find_row(topology, name_of(type), name_of(op));
}

// `name` as `parse` reads it, written back by name_of; throws naming the row when it is not a
// name this build spells that way.
template <class Parse>
void check_name(const std::string& name, const std::string& where, Parse parse) {
  std::string problem;
  try {
    if (name_of(parse(name)) == name) return;
    problem = fmt::format("write it as \"{}\"", name_of(parse(name)));
  } catch (const std::invalid_argument& error) {
    problem = error.what();
  }
  throw std::invalid_argument(fmt::format("topology's {} is \"{}\": {}", where, name, problem));
}

}  // namespace

double type_op_gamma(double reference_gamma, const TypeOpGamma& reference, const TypeOpGamma& pair) {
  const double in = reference.in_cache_seconds_per_byte;
  const double out = reference.out_of_cache_seconds_per_byte;
  const double t = in < out ? std::clamp((reference_gamma - out) / (in - out), 0.0, 1.0) : 0.0;
  const double in_ratio = pair.in_cache_seconds_per_byte / in;
  const double out_ratio = pair.out_of_cache_seconds_per_byte / out;
  return reference_gamma * (out_ratio + t * (in_ratio - out_ratio));
}

void check_type_op_gammas(const Topology& topology) {
  const std::vector<TypeOpGamma>& table = topology.gamma_by_type_op();
  if (table.empty()) return;
  for (std::size_t i = 0; i < table.size(); ++i) {
    check_name(table[i].type, fmt::format("gamma_by_type_op[{}].type", i), parse_data_type);
    check_name(table[i].op, fmt::format("gamma_by_type_op[{}].op", i), parse_reduce_op);
  }
  if (find_row(topology, reference_type, reference_op) == nullptr)
    throw std::invalid_argument(fmt::format(
        "topology's gamma_by_type_op has no {}/{} row, the one the others are priced relative to; add it (ringlab "
        "calibrate writes every pair) or remove the table",
        name_of(reference_type), name_of(reference_op)));
}

std::optional<Topology> topology_for_type_op(const Topology& topology, DataType type, ReduceOp op) {
  check_type_op_gammas(topology);
  const TypeOpGamma* pair = find_row(topology, type, op);
  if (pair == nullptr || (type == reference_type && op == reference_op) || !topology.gamma_seconds_per_byte())
    return std::nullopt;
  const TypeOpGamma& reference = *find_row(topology, reference_type, reference_op);
  Topology priced = topology;
  priced.set_gamma_seconds_per_byte(*topology.gamma_seconds_per_byte() * pair->out_of_cache_seconds_per_byte /
                                    reference.out_of_cache_seconds_per_byte);
  FootprintCurves curves = topology.footprint_curves();
  if (!curves.gamma_seconds_per_byte.empty()) {
    std::vector<CurvePoint> points = curves.gamma_seconds_per_byte.points();
    for (CurvePoint& point : points) point.value = type_op_gamma(point.value, reference, *pair);
    curves.gamma_seconds_per_byte = FootprintCurve(std::move(points));
    priced.set_footprint_curves(std::move(curves));
  }
  return priced;
}

double gamma_for(const Topology& topology, DataType type, ReduceOp op, double footprint_bytes) {
  const std::optional<Topology> pair = topology_for_type_op(topology, type, op);
  const Topology& priced = pair ? *pair : topology;
  return gamma_at_footprint(priced, choose_gamma(priced, std::nullopt), footprint_bytes);
}

std::optional<std::string> gamma_fallback_warning(const Topology& topology, DataType type, ReduceOp op) {
  if ((type == reference_type && op == reference_op) || !topology.gamma_seconds_per_byte() ||
      find_row(topology, type, op) != nullptr)
    return std::nullopt;
  return fmt::format(
      "topology '{}' has no gamma for {}/{} ({}): its reductions are priced with the {}/{} gamma ({:.4g} s/B{}); "
      "calibrate again with this build (ringlab calibrate measures every type and op) or give --gamma",
      topology.name(), name_of(type), name_of(op),
      topology.gamma_by_type_op().empty() ? "no gamma_by_type_op table: a file written before it"
                                          : "no row in its gamma_by_type_op table",
      name_of(reference_type), name_of(reference_op), *topology.gamma_seconds_per_byte(),
      topology.footprint_curves().gamma_seconds_per_byte.empty() ? "" : " and its footprint curve");
}

TypeOpPricing::TypeOpPricing(const Topology& topology, std::optional<double> given_gamma, Warn warn)
    : topology_(topology), given_gamma_(given_gamma), warn_(std::move(warn)) {
  check_type_op_gammas(topology);
  if (given_gamma_) choose_gamma(topology, given_gamma_);  // refused here, before any prediction
}

TypeOpPricing::Priced TypeOpPricing::at(DataType type, ReduceOp op) {
  const auto key = std::make_pair(type, op);
  auto found = priced_.find(key);
  if (found == priced_.end()) {
    Entry entry;
    if (!given_gamma_) {
      if (std::optional<Topology> pair = topology_for_type_op(topology_, type, op))
        entry.own = std::make_unique<Topology>(std::move(*pair));
      if (const std::optional<std::string> warning = gamma_fallback_warning(topology_, type, op); warning && warn_)
        warn_(*warning);
    }
    entry.gamma_seconds_per_byte = choose_gamma(entry.own ? *entry.own : topology_, given_gamma_);
    found = priced_.emplace(key, std::move(entry)).first;
  }
  return {found->second.own ? *found->second.own : topology_, found->second.gamma_seconds_per_byte};
}

}  // namespace ringlab::simulator
