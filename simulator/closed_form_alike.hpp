// The closed form's shortcut for an explicit schedule whose ranks run alike: rank 0 alone priced
// (closed_form_alike.cpp; internal to the model).
#pragma once

#include <optional>
#include <vector>

#include "simulator/closed_form.hpp"
#include "simulator/closed_form_ops.hpp"

namespace ringlab::simulator {

// What one step costs one rank in the walk of ClosedFormModel::predict, before its transfers are
// paired: the serialisation on its ports, what it reduces, and its longest route latency.
struct RankStepCost {
  double outgoing_seconds = 0;
  double incoming_seconds = 0;
  double reduced_bytes = 0;
  double longest_latency_seconds = 0;
  bool any_op = false;
  friend bool operator==(const RankStepCost&, const RankStepCost&) = default;
};

// The prediction when every rank's steps cost exactly rank 0's (`rank0`), which then finish
// each step at the same time (the induction of closed_form_alike.cpp).
Prediction price_alike(const std::vector<RankStepCost>& rank0, int nranks, double gamma_seconds_per_byte);

// An explicit schedule whose every rank, in every step, has exactly rank 0's port loads, reduced
// bytes and longest route latency, priced from rank 0 alone (Prediction::ranks_alike), the walk's
// result to the last bit (closed_form_alike.cpp says why); nothing as soon as a rank differs.
std::optional<Prediction> predict_alike(const Schedule& schedule, RouteCosts& route_costs, double gamma_seconds_per_byte,
                                        const OpBytes& bytes_of);

}  // namespace ringlab::simulator
