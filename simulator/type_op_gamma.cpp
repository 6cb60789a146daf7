#include "simulator/type_op_gamma.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "collectives/placement.hpp"
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

// The form table's row a form is priced with: the one measured with the most ranks reducing at
// once (in an all-reduce every rank reduces in the same steps); null when the form has no row.
const FormGamma* concurrent_row(const Topology& topology, Placement form) {
  const FormGamma* found = nullptr;
  for (const FormGamma& row : topology.gamma_by_form())
    if (row.form == name_of(form) && (found == nullptr || row.ranks_reducing > found->ranks_reducing)) found = &row;
  return found;
}

const FormGamma* form_reference_row(const Topology& topology) {
  for (const FormGamma& row : topology.gamma_by_form())
    if (row.form == name_of(Placement::out_of_place) && row.ranks_reducing == 1) return &row;
  return nullptr;
}

// What a curve point g is multiplied by to price `pair` relative to `reference` (steps 2-3).
double cost_ratio(double g, double reference_in, double reference_out, double pair_in, double pair_out) {
  const double t = reference_in < reference_out ? std::clamp((g - reference_out) / (reference_in - reference_out), 0.0, 1.0) : 0.0;
  const double in_ratio = pair_in / reference_in;
  const double out_ratio = pair_out / reference_out;
  return out_ratio + t * (in_ratio - out_ratio);
}

// The ratios a pair's and a form's reductions are priced with at curve point g (1 for what the
// topology has no row for).
struct PricedRows {
  const TypeOpGamma* type_op_reference = nullptr;
  const TypeOpGamma* pair = nullptr;
  const FormGamma* form_reference = nullptr;
  const FormGamma* form = nullptr;
  double ratio(double g) const {
    double value = 1;
    if (pair != nullptr)
      value *= cost_ratio(g, type_op_reference->in_cache_seconds_per_byte, type_op_reference->out_of_cache_seconds_per_byte,
                          pair->in_cache_seconds_per_byte, pair->out_of_cache_seconds_per_byte);
    if (form != nullptr)
      value *= cost_ratio(g, form_reference->in_cache_seconds_per_byte, form_reference->out_of_cache_seconds_per_byte,
                          form->in_cache_seconds_per_byte, form->out_of_cache_seconds_per_byte);
    return value;
  }
  double out_of_cache_ratio() const {
    double value = 1;
    if (pair != nullptr) value *= pair->out_of_cache_seconds_per_byte / type_op_reference->out_of_cache_seconds_per_byte;
    if (form != nullptr) value *= form->out_of_cache_seconds_per_byte / form_reference->out_of_cache_seconds_per_byte;
    return value;
  }
};

// The topology's gamma and gamma curve priced with `rows`.
std::pair<double, FootprintCurve> priced_gamma(const Topology& topology, const PricedRows& rows) {
  const double gamma = *topology.gamma_seconds_per_byte() * rows.out_of_cache_ratio();
  const FootprintCurve& curve = topology.footprint_curves().gamma_seconds_per_byte;
  if (curve.empty()) return {gamma, curve};
  std::vector<CurvePoint> points = curve.points();
  for (CurvePoint& point : points) point.value *= rows.ratio(point.value);
  return {gamma, FootprintCurve(std::move(points))};
}

}  // namespace

double type_op_gamma(double reference_gamma, const TypeOpGamma& reference, const TypeOpGamma& pair) {
  return reference_gamma * cost_ratio(reference_gamma, reference.in_cache_seconds_per_byte,
                                      reference.out_of_cache_seconds_per_byte, pair.in_cache_seconds_per_byte,
                                      pair.out_of_cache_seconds_per_byte);
}

void check_type_op_gammas(const Topology& topology) {
  const std::vector<FormGamma>& forms = topology.gamma_by_form();
  for (std::size_t i = 0; i < forms.size(); ++i)
    if (!placement_named(forms[i].form))
      throw std::invalid_argument(fmt::format("topology's gamma_by_form[{}].form is \"{}\": expected \"{}\" or \"{}\"",
                                              i, forms[i].form, name_of(Placement::in_place),
                                              name_of(Placement::out_of_place)));
  if (!forms.empty() && form_reference_row(topology) == nullptr)
    throw std::invalid_argument(fmt::format(
        "topology's gamma_by_form has no {} row with ranks_reducing 1, the one the others are priced relative to; add "
        "it (ringlab calibrate writes it) or remove the table",
        name_of(Placement::out_of_place)));
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
  if (!topology.gamma_seconds_per_byte()) return std::nullopt;
  PricedRows rows;
  if (!(type == reference_type && op == reference_op)) {
    rows.pair = find_row(topology, type, op);
    if (rows.pair != nullptr) rows.type_op_reference = find_row(topology, reference_type, reference_op);
  }
  rows.form_reference = form_reference_row(topology);
  if (rows.pair == nullptr && rows.form_reference == nullptr) return std::nullopt;
  Topology priced = topology;
  FootprintCurves curves = topology.footprint_curves();
  if (rows.form_reference != nullptr) {  // in place at its own gamma; the topology's gamma prices out of place
    rows.form = concurrent_row(topology, Placement::in_place);
    auto [in_place, in_place_curve] = priced_gamma(topology, rows);
    priced.set_in_place_gamma_seconds_per_byte(in_place);
    curves.in_place_gamma_seconds_per_byte = std::move(in_place_curve);
    rows.form = concurrent_row(topology, Placement::out_of_place);
  }
  auto [gamma, curve] = priced_gamma(topology, rows);
  priced.set_gamma_seconds_per_byte(gamma);
  curves.gamma_seconds_per_byte = std::move(curve);
  if (!curves.empty()) priced.set_footprint_curves(std::move(curves));
  return priced;
}

double gamma_for(const Topology& topology, DataType type, ReduceOp op, double footprint_bytes, Placement form) {
  const std::optional<Topology> pair = topology_for_type_op(topology, type, op);
  const Topology& priced = pair ? *pair : topology;
  const double gamma = gamma_at_footprint(priced, choose_gamma(priced, std::nullopt), footprint_bytes);
  if (form == Placement::out_of_place) return gamma;
  return in_place_gamma(priced.at_footprint(footprint_bytes), gamma);
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

std::optional<std::string> form_fallback_warning(const Topology& topology) {
  if (!topology.gamma_seconds_per_byte()) return std::nullopt;
  std::string missing;
  for (const Placement form : {Placement::in_place, Placement::out_of_place})
    if (concurrent_row(topology, form) == nullptr) missing += fmt::format("{}{}", missing.empty() ? "" : " and ", name_of(form));
  if (missing.empty()) return std::nullopt;
  return fmt::format(
      "topology '{}' has no gamma for {} reductions ({}): they are priced with its gamma ({:.4g} s/B{}), the "
      "out-of-place kernel on one rank alone; calibrate again with this build (ringlab calibrate measures both forms "
      "with the ranks reducing at once) or give --gamma",
      topology.name(), missing,
      topology.gamma_by_form().empty() ? "no gamma_by_form table: a file written before it"
                                       : "no row in its gamma_by_form table",
      *topology.gamma_seconds_per_byte(),
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
    if (!given_gamma_ && priced_.empty())
      if (const std::optional<std::string> warning = form_fallback_warning(topology_); warning && warn_) warn_(*warning);
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
