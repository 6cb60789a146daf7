// Reductions priced per (type, op). A calibrated topology's gamma and gamma curve are float32
// sum's; its gamma_by_type_op table (topology.hpp: TypeOpGamma) holds what every (type, op) cost
// in cache and out of cache in one pass of `ringlab calibrate`, float32/sum among them (the
// reference r). Reductions of a pair p are priced with the topology's float32/sum gamma scaled
// (docs/simulator.md, "Gamma by type and op"):
//   1. the topology's gamma (an out-of-cache figure: fitted over operands of 16 MiB and more) times
//      the pair's out-of-cache ratio p.out / r.out;
//   2. each point g of its gamma curve placed between the reference's two values:
//      t(g) = (g - r.out) / (r.in - r.out), clamped to [0, 1] (1: as fast as in cache, 0: as slow
//      as out of cache; t = 0 when r.in >= r.out, a reference that shows no cache to place g by);
//   3. the pair's ratio to the reference there, linear between its two ratios:
//      ratio(g) = p.out / r.out + t(g) x (p.in / r.in - p.out / r.out), and the point's value
//      g x ratio(g) (the curve interpolates between its points as always).
// float32/sum is therefore priced exactly as before; where the curve reads the reference's
// in-cache (out-of-cache) value the pair gets its own; in between, the curve's shape says how
// far in cache a footprint is. The table is written scaled like gamma (x E/C where processes share
// cores), which the ratios do not see; the flow-level model's sharing applies to the result.
// A pair without a row (a file written before the table, or a row missing) is priced with the
// float32/sum gamma, and gamma_fallback_warning says so; a topology without any gamma (a preset)
// prices every pair with the default, as before.
// Operand forms (docs/simulator.md, "Gamma by type and op"): the topology's gamma is the
// out-of-place kernel on one rank alone, its gamma_by_form table (topology.hpp: FormGamma) the
// kernel in each form with k ranks reducing at once and the reference, out of place on one rank
// (r'). A form f is priced with its row of the most ranks (q_f) by steps 1-3 again, q_f against
// r', on top of the pair's ratio: the priced topology's gamma and curve are the out-of-place
// form's, its in-place gamma and curve (Topology::set_in_place_gamma_seconds_per_byte) the
// in-place one's. A form without a row is priced with r' itself (ratio 1), and without the table
// both are, so an old file prices as before; form_fallback_warning says so.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "collectives/datatype.hpp"
#include "collectives/placement.hpp"
#include "topology/topology.hpp"

namespace ringlab::simulator {

// The pair the topology's own gamma and gamma curve are measured on.
inline constexpr DataType reference_type = DataType::float32;
inline constexpr ReduceOp reference_op = ReduceOp::sum;

// Steps 2-3 for one point of the float32/sum gamma curve.
double type_op_gamma(double reference_gamma, const TypeOpGamma& reference, const TypeOpGamma& pair);

// Throws std::invalid_argument when the topology's gamma_by_type_op names a type or op this build
// does not know (or spells it other than name_of does), or has rows but no float32/sum row, or its
// gamma_by_form names a form other than "in-place" and "out-of-place", or has rows but no
// out-of-place one with ranks_reducing 1; the message names the row and what to write.
void check_type_op_gammas(const Topology& topology);

// The topology as it prices reductions of (type, op): gamma and gamma curve replaced by the
// pair's (steps 1-3) out of place, and with a gamma_by_form table the in-place gamma and curve
// set. Nothing when it prices the pair as it is: no gamma, or neither a row for the pair (or the
// pair float32/sum) nor a form table. Throws as check_type_op_gammas.
std::optional<Topology> topology_for_type_op(const Topology& topology, DataType type, ReduceOp op);

// The gamma of (type, op) on `topology` for a call touching `footprint_bytes`, as the models
// price it without --gamma: gamma_at_footprint on the pair's topology with its own gamma (the
// pair's gamma curve there, else the pair's gamma, else default_gamma_seconds_per_byte).
// `form` the reduction's operand form, spelled as the placements (in place: a = a (op) b).
double gamma_for(const Topology& topology, DataType type, ReduceOp op, double footprint_bytes,
                 Placement form = Placement::out_of_place);

// Why (type, op) is priced with the float32/sum gamma, naming the pair and the fallback; nothing
// when the table has the pair's row, the pair is float32/sum, or the topology has no gamma.
std::optional<std::string> gamma_fallback_warning(const Topology& topology, DataType type, ReduceOp op);

// Why a form's reductions are priced with the topology's gamma (no gamma_by_form table, or no
// row for the form), naming the forms; nothing when both have rows or there is no gamma.
std::optional<std::string> form_fallback_warning(const Topology& topology);

// What simulate and compare price each (type, op) with: the topology (topology_for_type_op) and the
// gamma to give the models (choose_gamma), built once per pair; `warn` gets the pair's
// gamma_fallback_warning the first time the pair is met, so once per pair for the command that
// owns this object, and form_fallback_warning at the first pair. With a given gamma (--gamma) every pair is priced on the topology as it is
// with that gamma, and nothing is warned. Keeps a reference to the topology; the topologies it
// returns live as long as it does. Throws as check_type_op_gammas and choose_gamma.
class TypeOpPricing {
 public:
  using Warn = std::function<void(const std::string&)>;
  TypeOpPricing(const Topology& topology, std::optional<double> given_gamma, Warn warn);
  TypeOpPricing(const Topology&& topology, std::optional<double> given_gamma, Warn warn) = delete;  // kept by reference

  struct Priced {
    const Topology& topology;
    double gamma_seconds_per_byte;
  };
  Priced at(DataType type, ReduceOp op);

 private:
  struct Entry {
    std::unique_ptr<Topology> own;  // null: the topology as it is
    double gamma_seconds_per_byte = 0;
  };
  const Topology& topology_;
  std::optional<double> given_gamma_;
  Warn warn_;
  std::map<std::pair<DataType, ReduceOp>, Entry> priced_;
};

}  // namespace ringlab::simulator
